// The state's shape (StateShape.c): how deep its tables nest, checked before an action commits.
#ifndef LK_STATE_SHAPE_H
#define LK_STATE_SHAPE_H

#include "LuaSupport.h"

// How deep the tables of a state may nest, counting the root: what a snapshot and a saved file
// hold (LuaValue.maximumDepth).
enum { LK_STATE_MAX_DEPTH = 200 };

// A move of elements within one array by a table library function (see lk_shape.move): the
// array, the call making it (its thread and its frame: one activation of the function, not
// any call of it), the state's count of writes when it began and the writes it made since.
typedef struct {
  const void *array;
  const void *thread;
  const void *frame;
  lua_Integer writes_at_begin;
  lua_Integer own_writes;
} lk_shape_move;

// The shape's part of lk_info, written only by StateShape.c: a bound on the state's height (0:
// not known), the bound when the transaction began, whether a write may have left it out of
// shape, and the registry slot of its root's proxy.
typedef struct {
  lua_Integer bound;
  lua_Integer bound_at_begin;
  int dirty;
  int root_slot;
  // The array (a real table) whose elements the table library is moving within it (a sort, an
  // insert, a remove, a move inside one table), the library function moving them, and the mark
  // its own next write of a table carries: the write moves an element within that array. A
  // mark is made only while every write since the move began was the move's own: a sort's
  // order function that writes the state (empties the array, stores it in an element) ends
  // the marks of that sort, whose elements may then be anywhere.
  lk_shape_move move;
  const void *move_mark;
  lua_Integer writes;  // the state's writes, counted by the journaled write
} lk_shape;

/// The call at `frame` of thread `thread` (a table library function) begins to move elements
/// within the array whose real table is `real` (NULL: not a state table); returns the move it
/// was making, to give back to lk_shape_moved. Calls nest: a sort's order function may insert
/// into another array. A call that ends by an error leaves its move here: the frame tells it
/// from the call that made the move before (lk_shape_error_caught forgets it as well).
static inline lk_shape_move lk_shape_moving(
    lk_shape *shape, const void *real, const void *thread, const void *frame) {
  lk_shape_move outer = shape->move;
  shape->move = (lk_shape_move){real, thread, frame, shape->writes, 0};
  shape->move_mark = NULL;
  return outer;
}
/// Lua code caught an error (pcall, a resume): a move the error ended is over. One under way
/// further out makes no more marks (its elements may have moved meanwhile).
static inline void lk_shape_error_caught(lk_shape *shape) {
  shape->move = (lk_shape_move){NULL, NULL, NULL, 0, 0};
  shape->move_mark = NULL;
}
/// The moves within the array are over: back to the move made before (or none).
static inline void lk_shape_moved(lk_shape *shape, lk_shape_move outer) {
  shape->move = outer;
  shape->move_mark = NULL;
}

/// The table library's next write is of a value it read from the array it is moving within (a
/// table when `is_table`): marked when no other write came between.
static inline void lk_shape_move_next(lk_shape *shape, int is_table) {
  int only_own = shape->writes == shape->move.writes_at_begin + shape->move.own_writes;
  shape->move.own_writes += 1;
  if (only_own && is_table) shape->move_mark = shape->move.array;
}

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
  shape->move = (lk_shape_move){NULL, NULL, NULL, 0, 0};  // nothing of an ended move carries over
  shape->move_mark = NULL;
}
/// The transaction was rolled back: the bound is what it was when it began.
void lk_shape_rolled_back(lua_State *L);
/// The host wrote the state: its height is not known.
void lk_shape_forget(lua_State *L);

#endif
