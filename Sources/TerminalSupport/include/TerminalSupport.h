// Ctrl-C at the REPL's prompt, in C because a signal handler must be.
#ifndef TERMINAL_SUPPORT_H
#define TERMINAL_SUPPORT_H

/// Has Ctrl-C end the line being typed instead of the process: SIGINT is noted and wakes the
/// reading of keys, which libedit then does through `ts_getc` (set as its `rl_getc_function`).
/// The signal may land on any thread of the process; what it wakes is a pipe, which any thread
/// can write. Call before the first `readline`.
void ts_catch_interrupts(void);
/// Whether Ctrl-C ended the last `readline` (which then returned NULL, as at the end of the
/// input); clears the note.
int ts_take_interrupt(void);

#endif
