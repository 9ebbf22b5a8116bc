// Interned names (Names.c).
#ifndef LK_NAMES_H
#define LK_NAMES_H

#include "LuaSupport.h"

// The names' part of lk_info, written only by Names.c.
typedef struct {
  int *slots;    // registry slots of the interned names, by index; 0: not yet
  int capacity;
} lk_names;

/// Frees the table of slots (lk_close).
void lk_names_close(lk_names *names);

#endif
