/* Fuzz target: one .metric-db record file, a packed experiment-N.mdb, an
 * hpcrun trace (*.hpctrace) or a packed experiment.mt of an old
 * experiment.xml database (the input is the file itself: a record or a
 * trace by its magic, else a packed file, of traces when its first entry
 * points at a trace's magic). It is
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
	const char *name = "experiment-1.mdb";
	if (size >= 16 && memcmp(data, "HPCPROF-metricdb", 16) == 0)
		name = "1.app-000000-000-7f000001-100-0.metric-db";
	else if (size >= 12 && memcmp(data, "HPCRUN-trace", 12) == 0)
		name = "1.app-000000-000-7f000001-100-0.hpctrace";
	else if (size >= 24) {
		uint64_t off = 0;
		for (int i = 16; i < 24; i++)
			off = off << 8 | data[i];
		if (off <= size && size - off >= 12 && memcmp(data + off, "HPCRUN-trace", 12) == 0)
			name = "experiment.mt";
	}
	profdb_input in[2] = {
		{"experiment.xml", xml, strlen(xml)},
		{name, data, size},
	};
	fuzz_query_run(in, 2, fuzz_hpctk_strict);
	return 0;
}
