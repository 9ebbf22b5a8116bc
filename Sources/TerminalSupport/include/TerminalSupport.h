// The REPL's terminal, in C: Ctrl-C at its prompt (a signal handler must be C), and libedit,
// opened with dlopen (its functions are C, reached through dlsym).
#ifndef TERMINAL_SUPPORT_H
#define TERMINAL_SUPPORT_H

#include <stdio.h>

/// Has Ctrl-C end the line being typed instead of the process: SIGINT is noted and wakes the
/// reading of keys, which libedit then does through `ts_getc` (set as its `rl_getc_function`).
/// The signal may land on any thread of the process; what it wakes is a pipe, which any thread
/// can write. Call before the first `readline`.
void ts_catch_interrupts(void);
/// Whether Ctrl-C ended the last `readline` (which then returned NULL, as at the end of the
/// input); clears the note.
int ts_take_interrupt(void);

// Line editing on libedit, opened on first use (LineEditing.c).
/// Opens libedit; 0 when it cannot be had (then nothing below may be called).
int te_open(void);
void te_using_history(void);
int te_read_history(const char *path);
int te_write_history(const char *path);
void te_add_history(const char *line);
int te_parse_and_bind(const char *line);
/// libedit's `readline`: the line typed (to be freed), or NULL at the end of the input.
char *te_readline(const char *prompt);
char **te_completion_matches(const char *text, char *(*generate)(const char *, int));
/// What Tab calls (libedit's `rl_attempted_completion_function`).
void te_set_completion(char **(*complete)(const char *, int, int));
/// Says the completion is over: no fall back to file names.
void te_completion_is_over(void);
const char *te_line_buffer(void);
/// Has libedit read each key with `read_key`, and install no signal handlers of its own.
void te_read_keys_with(int (*read_key)(FILE *));

/// Catches `signals` (none may be SIGKILL or SIGSTOP): each one is noted, whatever else comes,
/// and wakes `ts_wait_ending_signal`; SIGPIPE only when the kernel raised it on a write of this
/// process (one another process sent is dropped). Returns the descriptor to wait on, or -1.
int ts_catch_ending_signals(const int *signals, int count);
/// Waits until one of `signals` was caught since the last call; returns it (the first in
/// `signals`' order among those caught), or -1 if the wait failed.
int ts_wait_ending_signal(int reader, const int *signals, int count);
/// Whether `signal_number` is ignored now (`SIG_IGN`, as `nohup` leaves SIGHUP): 1 or 0.
int ts_signal_is_ignored(int signal_number);

/// Flushes standard output; 0 when everything written to it went out, else the `errno` of the
/// write that failed (a full disk, `> /dev/full`), or -1 when the failure is older than this
/// flush. Swift cannot reach C's `stdout` under strict concurrency.
int ts_standard_output_error(void);

#endif
