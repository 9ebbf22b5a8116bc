// Debian's libedit (libedit-dev), through its readline-compatible interface: line editing,
// history and completion for the REPL.
#include <stdio.h>
#include <editline/readline.h>

// libedit's settings are C globals, which Swift 6 will not touch from Swift: reached here.
static inline void ce_set_completion(rl_completion_func_t *function) {
  rl_attempted_completion_function = function;
}
static inline void ce_completion_is_over(void) { rl_attempted_completion_over = 1; }
static inline const char *ce_line_buffer(void) { return rl_line_buffer; }
