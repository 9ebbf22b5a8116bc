// The coroutine library the state replaces (CoroutineLibrary.c).
#ifndef LK_COROUTINE_LIBRARY_H
#define LK_COROUTINE_LIBRARY_H

// The coroutine library's part of lk_info, written only by CoroutineLibrary.c.
typedef struct {
  int close_depth;  // coroutine.close calls in progress, nested
} lk_coroutines;

#endif
