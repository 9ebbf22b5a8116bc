// Whether what was written to standard output reached it (TerminalSupport.h).
#include <errno.h>
#include <stdio.h>

#include "TerminalSupport.h"

int ts_standard_output_error(void) {
  errno = 0;
  if (fflush(stdout) != 0 || ferror(stdout)) return errno != 0 ? errno : -1;
  return 0;
}
