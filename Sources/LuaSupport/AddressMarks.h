// Marks kept by table address for one walk over a state (TransactionChanges.c), or numbers for
// one adoption (the heights of Transaction.c): an open-addressing set in a full userdata at a
// fixed stack slot. A walk that meets every table of a large state
// looked each up, and set it, in Lua tables keyed by light userdata, most of its time; here a
// look-up is a multiply and a probe or two. The userdata is Lua's memory (charged to the state's
// limit, released with the walk's other garbage) and a raise from lua_newuserdatauv while it grows
// leaves nothing half made: the old one stays at its slot until the new one is filled.
#ifndef LK_ADDRESS_MARKS_H
#define LK_ADDRESS_MARKS_H

#include "LuaSupport.h"

#include <stdint.h>

typedef struct {
  const void *address;  // NULL: an empty slot
  unsigned marks;
} lk_address_slot;

typedef struct {
  size_t capacity;  // a power of two
  size_t count;
  lk_address_slot slots[];
} lk_address_marks;

static inline lk_address_marks *lk_address_marks_new(lua_State *L, size_t capacity) {
  lk_address_marks *marks = (lk_address_marks *)lua_newuserdatauv(
    L, sizeof(lk_address_marks) + capacity * sizeof(lk_address_slot), 0);
  marks->capacity = capacity;
  marks->count = 0;
  for (size_t i = 0; i < capacity; i++) marks->slots[i] = (lk_address_slot){NULL, 0};
  return marks;
}

static inline size_t lk_address_hash(const void *address, size_t capacity) {
  uint64_t bits = (uint64_t)(uintptr_t)address * 0x9E3779B97F4A7C15ull;
  return (size_t)(bits >> 32) & (capacity - 1);
}

static inline lk_address_slot *lk_address_probe(lk_address_marks *marks, const void *address) {
  size_t i = lk_address_hash(address, marks->capacity);
  while (marks->slots[i].address != NULL && marks->slots[i].address != address) {
    i = (i + 1) & (marks->capacity - 1);
  }
  return &marks->slots[i];
}

/// The marks of `address` in the set at stack slot `slot` (0 when it has none).
static inline unsigned lk_address_marks_of(lua_State *L, int slot, const void *address) {
  lk_address_marks *marks = (lk_address_marks *)lua_touserdata(L, slot);
  return lk_address_probe(marks, address)->marks;
}

/// Sets the marks of `address` in the set at stack slot `slot` (absolute), growing it (a new
/// userdata replaces the old at the slot) when it is half full.
static inline void lk_address_marks_set(lua_State *L, int slot, const void *address, unsigned m) {
  lk_address_marks *marks = (lk_address_marks *)lua_touserdata(L, slot);
  lk_address_slot *found = lk_address_probe(marks, address);
  if (found->address == NULL) {
    if (2 * (marks->count + 1) > marks->capacity) {
      lk_address_marks *grown = lk_address_marks_new(L, marks->capacity * 2);
      for (size_t i = 0; i < marks->capacity; i++) {
        if (marks->slots[i].address == NULL) continue;
        *lk_address_probe(grown, marks->slots[i].address) = marks->slots[i];
      }
      grown->count = marks->count;
      lua_replace(L, slot);
      marks = grown;
      found = lk_address_probe(marks, address);
    }
    found->address = address;
    marks->count += 1;
  }
  found->marks = m;
}

#endif
