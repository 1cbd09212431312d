/* The shared runner (tc_main in common.c: exits 77, meson's SKIP, when
 * every test that ran was skipped) for test programs that do not end with
 * TC_MAIN themselves; tests/meson.build adds this file to those. */
#include "common.h"

TC_MAIN
