/* Names: see names.h. */
#include "names.h"

profdb_str names_fold(profdb_format f, profdb_str name)
{
	(void)f;
	return name;
}
