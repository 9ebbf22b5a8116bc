// libedit, opened when the REPL first edits a line at a terminal: a piped `composable run`
// (and every other command) starts without loading it and the three libraries it brings
// (libtinfo, libbsd, libmd), about a sixth of what the process had to map and relocate.
// Its readline-compatible functions and settings are reached through what `dlsym` finds.
#include "TerminalSupport.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

typedef char *rl_compentry_func_t(const char *, int);
typedef char **rl_completion_func_t(const char *, int, int);
typedef int rl_getc_func_t(FILE *);

static struct {
  int loaded;
  void (*using_history)(void);
  int (*read_history)(const char *);
  int (*write_history)(const char *);
  int (*add_history)(const char *);
  int (*parse_and_bind)(const char *);
  char *(*readline)(const char *);
  char **(*completion_matches)(const char *, rl_compentry_func_t *);
  rl_completion_func_t **attempted_completion_function;
  int *attempted_completion_over;
  char **line_buffer;
  int *catch_signals;
  rl_getc_func_t **getc_function;
} te_edit;

static pthread_once_t te_once = PTHREAD_ONCE_INIT;

static void te_load(void) {
  void *library = dlopen("libedit.so.2", RTLD_NOW | RTLD_LOCAL);
  if (library == NULL) return;
#define TE_FIND(field, name)                              \
  if ((*(void **)&te_edit.field = dlsym(library, name)) == NULL) return;
  TE_FIND(using_history, "using_history")
  TE_FIND(read_history, "read_history")
  TE_FIND(write_history, "write_history")
  TE_FIND(add_history, "add_history")
  TE_FIND(parse_and_bind, "rl_parse_and_bind")
  TE_FIND(readline, "readline")
  TE_FIND(completion_matches, "rl_completion_matches")
  TE_FIND(attempted_completion_function, "rl_attempted_completion_function")
  TE_FIND(attempted_completion_over, "rl_attempted_completion_over")
  TE_FIND(line_buffer, "rl_line_buffer")
  TE_FIND(catch_signals, "rl_catch_signals")
  TE_FIND(getc_function, "rl_getc_function")
#undef TE_FIND
  te_edit.loaded = 1;
}

int te_open(void) {
  pthread_once(&te_once, te_load);
  return te_edit.loaded;
}

void te_using_history(void) { te_edit.using_history(); }
int te_read_history(const char *path) { return te_edit.read_history(path); }
int te_write_history(const char *path) { return te_edit.write_history(path); }
void te_add_history(const char *line) { te_edit.add_history(line); }
int te_parse_and_bind(const char *line) { return te_edit.parse_and_bind(line); }
char *te_readline(const char *prompt) { return te_edit.readline(prompt); }

char **te_completion_matches(const char *text, char *(*generate)(const char *, int)) {
  return te_edit.completion_matches(text, generate);
}

void te_set_completion(char **(*complete)(const char *, int, int)) {
  *te_edit.attempted_completion_function = complete;
}

void te_completion_is_over(void) { *te_edit.attempted_completion_over = 1; }
const char *te_line_buffer(void) { return *te_edit.line_buffer; }

void te_read_keys_with(int (*read_key)(FILE *)) {
  *te_edit.catch_signals = 0;  // libedit's own handlers would re-raise it to the group
  *te_edit.getc_function = read_key;
}
