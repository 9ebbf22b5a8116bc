// The state's shape (StateShape.c): how deep its tables nest, checked before an action commits.
#ifndef LK_STATE_SHAPE_H
#define LK_STATE_SHAPE_H

#include "LuaSupport.h"

// How deep the tables of a state may nest, counting the root: what a snapshot and a saved file
// hold (LuaValue.maximumDepth).
enum { LK_STATE_MAX_DEPTH = 200 };

// The shape's part of lk_info, written only by StateShape.c: a bound on the state's height (0:
// not known), the bound when the transaction began, whether a write may have left it out of
// shape, and the registry slot of its root's proxy.
typedef struct {
  lua_Integer bound;
  lua_Integer bound_at_begin;
  int dirty;
  int root_slot;
  // table.sort's array (a real table) while it sorts one of the state's, and the mark its own
  // next write of a table carries: the write moves an element within that array.
  const void *sorting;
  const void *permuting;
} lk_shape;

/// table.sort begins on the array whose real table is `real` (NULL: not a state table).
static inline void lk_shape_sorting(lk_shape *shape, const void *real) {
  shape->sorting = real;
  shape->permuting = NULL;
}

/// table.sort's next write, of a table it read from its array, moves an element within it.
static inline void lk_shape_permute_next(lk_shape *shape) { shape->permuting = shape->sorting; }

// A write of the table at `value` through `proxy` into the real table at `real` under `key`,
// about to happen: `existing` when it was a state table already, else the height of the table
// it was adopted into (-1: a state table was inside it).
void lk_shape_note_store(
    lua_State *L, int proxy, int real, int key, int value, int existing, int height);
/// A transaction begins on the state whose root proxy is in the registry at `root_slot`. Kept
/// as a slot, not looked at: on every action, while only a write that stores a table asks
/// whether it wrote to the root (a write to the root goes through this proxy: a state has one).
static inline void lk_shape_begin(lk_shape *shape, int root_slot) {
  shape->root_slot = root_slot;
  shape->bound_at_begin = shape->bound;
  shape->dirty = 0;
  shape->sorting = NULL;  // nothing of a sort an error ended carries over
  shape->permuting = NULL;
}
/// The transaction was rolled back: the bound is what it was when it began.
void lk_shape_rolled_back(lua_State *L);
/// The host wrote the state: its height is not known.
void lk_shape_forget(lua_State *L);

#endif
