#include "TerminalSupport.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

// Lock-free atomics: safe in a handler, and seen as such by ThreadSanitizer.
static atomic_int ts_interrupted = 0;
static atomic_int ts_wake_reader = -1;
static atomic_int ts_wake_writer = -1;

// What a handler may do: note it, and write one byte to wake the reader.
static void ts_note_interrupt(int signal_number) {
  (void)signal_number;
  int saved = errno;
  atomic_store(&ts_interrupted, 1);
  char byte = 1;
  (void)!write(atomic_load(&ts_wake_writer), &byte, 1);
  errno = saved;
}

// The next key for libedit: waits on the terminal and on the wake pipe; Ctrl-C answers EOF,
// which ends the readline with NULL (told apart from Ctrl-D by the note).
static int ts_getc(FILE *stream) {
  int fd = fileno(stream);
  for (;;) {
    int wake = atomic_load(&ts_wake_reader);
    struct pollfd fds[2] = {{fd, POLLIN, 0}, {wake, POLLIN, 0}};
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return EOF;
    }
    if (fds[1].revents & POLLIN) {
      char drained[64];
      while (read(wake, drained, sizeof drained) > 0) {
      }
      if (atomic_load(&ts_interrupted)) return EOF;
      continue;
    }
    unsigned char key;
    ssize_t count = read(fd, &key, 1);
    if (count == 1) return key;
    if (count < 0 && errno == EINTR) continue;
    return EOF;
  }
}

void ts_catch_interrupts(void) {
  if (atomic_load(&ts_wake_reader) < 0) {
    int ends[2];
    if (pipe(ends) != 0) return;
    for (int i = 0; i < 2; i++) {
      fcntl(ends[i], F_SETFD, FD_CLOEXEC);
      fcntl(ends[i], F_SETFL, O_NONBLOCK);
    }
    atomic_store(&ts_wake_writer, ends[1]);
    atomic_store(&ts_wake_reader, ends[0]);
  }
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = ts_note_interrupt;
  action.sa_flags = SA_RESTART;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, NULL);
  if (te_open()) te_read_keys_with(ts_getc);
}

int ts_take_interrupt(void) { return atomic_exchange(&ts_interrupted, 0); }
