/* Fuzz target: one .metric-db record file, or a packed experiment-N.mdb
 * (the input is the file itself: a record when it starts with the record
 * magic, else a packed file), of an old experiment.xml database. It is
 * opened through the common query interface (profdb_open_inputs(), the
 * shared driver drive-query.c) beside the test-data writer's sample
 * experiment.xml (tests/writer/hpctkxml.c), whose tree and metric table
 * the headers are checked against, and every query is driven. */
#include <string.h>

#include "drive-hpctk.h"
#include "drive-query.h"
#include "writer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!data)
		return 0;
	const char *xml = tw_xmldb_sample_xml();
	int record = size >= 16 && memcmp(data, "HPCPROF-metricdb", 16) == 0;
	profdb_input in[2] = {
		{"experiment.xml", xml, strlen(xml)},
		{record ? "1.app-000000-000-7f000001-100-0.metric-db" : "experiment-1.mdb", data, size},
	};
	fuzz_query_run(in, 2, fuzz_hpctk_strict);
	return 0;
}
