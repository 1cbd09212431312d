/* pprof: see pprof.c */
typedef int profdb__cv_protobuf_placeholder;
