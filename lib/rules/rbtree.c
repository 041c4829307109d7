/* std::map's and std::set's red-black trees, which libstdc++ walks and
 * links with functions of its own (_Rb_tree_increment, _Rb_tree_decrement,
 * _Rb_tree_insert_and_rebalance): models (models.def) built of loads,
 * stores and branches on the nodes, so that their derivatives do on the
 * shadow tree what the primal does on the tree. The decisions (colours,
 * which child) are read from the primal's nodes only; the shadow tree's
 * addresses follow them. */
#include "kinase.h"

/* A red-black tree's node (std::_Rb_tree_node_base): its colour (red 0),
 * then the addresses of its parent, left child and right child. */
enum { RB_COLOUR, RB_PARENT, RB_LEFT, RB_RIGHT };

enum { RB_RED, RB_BLACK };

static LLVMValueRef rb_address(LLVMBuilderRef b, LLVMValueRef node, int field) {
  LLVMTypeRef byte = LLVMInt8TypeInContext(kn_module.ctx);
  unsigned long long at = field == RB_COLOUR ? 0 : (unsigned long long)field * LLVMPointerSize(kn_module.layout);
  LLVMValueRef offset = LLVMConstInt(LLVMInt64TypeInContext(kn_module.ctx), at, 0);
  return LLVMBuildGEP2(b, byte, node, &offset, 1, "");
}

static LLVMValueRef rb_field(LLVMBuilderRef b, LLVMValueRef node, int field) {
  LLVMTypeRef type = field == RB_COLOUR ? LLVMInt32TypeInContext(kn_module.ctx) : LLVMTypeOf(node);
  return LLVMBuildLoad2(b, type, rb_address(b, node, field), "");
}

/* node->field = value: an address, or a colour (RB_RED, RB_BLACK). */
static void rb_set(LLVMBuilderRef b, LLVMValueRef node, int field, LLVMValueRef value) {
  LLVMBuildStore(b, value, rb_address(b, node, field));
}

static void rb_colour(LLVMBuilderRef b, LLVMValueRef node, int colour) {
  rb_set(b, node, RB_COLOUR, LLVMConstInt(LLVMInt32TypeInContext(kn_module.ctx), (unsigned long long)colour, 0));
}

static LLVMBasicBlockRef rb_block(LLVMValueRef fn, const char *name) {
  return LLVMAppendBasicBlockInContext(kn_module.ctx, fn, name);
}

/* The step of an in-order walk (`toward` RB_RIGHT: the next node; RB_LEFT:
 * the previous) from a node with no child that way: up while x is that
 * child of its parent y. The builder is left at the end of the climb, with
 * *x and *y the last two nodes. */
static void rb_climb(LLVMBuilderRef b, LLVMValueRef fn, LLVMValueRef from, int toward, LLVMValueRef *x,
                     LLVMValueRef *y) {
  LLVMBasicBlockRef start = LLVMGetInsertBlock(b), head = rb_block(fn, "climb"), step = rb_block(fn, "up");
  LLVMBasicBlockRef done = rb_block(fn, "climbed");
  LLVMValueRef parent = rb_field(b, from, RB_PARENT);
  LLVMBuildBr(b, head);
  LLVMPositionBuilderAtEnd(b, head);
  LLVMValueRef cx = LLVMBuildPhi(b, LLVMTypeOf(from), "x"), cy = LLVMBuildPhi(b, LLVMTypeOf(from), "y");
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, cx, rb_field(b, cy, toward), ""), step, done);
  LLVMPositionBuilderAtEnd(b, step);
  LLVMValueRef grand = rb_field(b, cy, RB_PARENT);
  LLVMBuildBr(b, head);
  LLVMValueRef xs[2] = {from, cy}, ys[2] = {parent, grand};
  LLVMBasicBlockRef preds[2] = {start, step};
  LLVMAddIncoming(cx, xs, preds, 2);
  LLVMAddIncoming(cy, ys, preds, 2);
  LLVMPositionBuilderAtEnd(b, done);
  *x = cx;
  *y = cy;
}

/* Goes down from `from` while it has an `away` child and returns the last
 * node: the leftmost node of a right subtree, or the rightmost of a left
 * one. */
static void rb_descend_and_return(LLVMBuilderRef b, LLVMValueRef fn, LLVMValueRef from, int away) {
  LLVMBasicBlockRef start = LLVMGetInsertBlock(b), head = rb_block(fn, "descend"), done = rb_block(fn, "found");
  LLVMBuildBr(b, head);
  LLVMPositionBuilderAtEnd(b, head);
  LLVMValueRef n = LLVMBuildPhi(b, LLVMTypeOf(from), "n");
  LLVMValueRef child = rb_field(b, n, away);
  LLVMBuildCondBr(b, LLVMBuildIsNotNull(b, child, ""), head, done);
  LLVMValueRef ns[2] = {from, child};
  LLVMBasicBlockRef preds[2] = {start, head};
  LLVMAddIncoming(n, ns, preds, 2);
  LLVMPositionBuilderAtEnd(b, done);
  LLVMBuildRet(b, n);
}

/* The in-order step from x `toward` one side (RB_RIGHT: the next node):
 * with a child that way, returns the last node down its subtree the other
 * way; else climbs (rb_climb), the builder left there. */
static void rb_step(LLVMBuilderRef b, LLVMValueRef fn, LLVMValueRef x, int toward, LLVMValueRef *cx,
                    LLVMValueRef *cy) {
  LLVMBasicBlockRef down = rb_block(fn, "child"), up = rb_block(fn, "no_child");
  LLVMValueRef child = rb_field(b, x, toward);
  LLVMBuildCondBr(b, LLVMBuildIsNotNull(b, child, ""), down, up);
  LLVMPositionBuilderAtEnd(b, down);
  rb_descend_and_return(b, fn, child, toward == RB_RIGHT ? RB_LEFT : RB_RIGHT);
  LLVMPositionBuilderAtEnd(b, up);
  rb_climb(b, fn, x, toward, cx, cy);
}

/* kinase.model.rb_increment(x), libstdc++'s _Rb_tree_increment:
 *   if (x->right) { x = x->right; while (x->left) x = x->left; return x; }
 *   y = x->parent; while (x == y->right) { x = y; y = y->parent; }
 *   return x->right != y ? y : x;   (x the header's parent: the end) */
static void build_rb_increment(LLVMValueRef fn) {
  LLVMBuilderRef b = LLVMCreateBuilderInContext(kn_module.ctx);
  LLVMValueRef x = LLVMGetParam(fn, 0), cx, cy;
  LLVMPositionBuilderAtEnd(b, rb_block(fn, "entry"));
  rb_step(b, fn, x, RB_RIGHT, &cx, &cy);
  LLVMValueRef last = LLVMBuildICmp(b, LLVMIntNE, rb_field(b, cx, RB_RIGHT), cy, "");
  LLVMBuildRet(b, LLVMBuildSelect(b, last, cy, cx, ""));
  LLVMDisposeBuilder(b);
}

/* kinase.model.rb_decrement(x), libstdc++'s _Rb_tree_decrement:
 *   if (x is red and x->parent->parent == x) return x->right;  (the end:
 *     the header, whose right is the last node)
 *   if (x->left) { y = x->left; while (y->right) y = y->right; return y; }
 *   y = x->parent; while (x == y->left) { x = y; y = y->parent; } return y; */
static void build_rb_decrement(LLVMValueRef fn) {
  LLVMBuilderRef b = LLVMCreateBuilderInContext(kn_module.ctx);
  LLVMValueRef x = LLVMGetParam(fn, 0), cx, cy;
  LLVMBasicBlockRef entry = rb_block(fn, "entry"), header = rb_block(fn, "end"), node = rb_block(fn, "node");
  LLVMPositionBuilderAtEnd(b, entry);
  LLVMValueRef red = LLVMBuildICmp(b, LLVMIntEQ, rb_field(b, x, RB_COLOUR),
                                   LLVMConstNull(LLVMInt32TypeInContext(kn_module.ctx)), "");
  LLVMValueRef own = LLVMBuildICmp(b, LLVMIntEQ, rb_field(b, rb_field(b, x, RB_PARENT), RB_PARENT), x, "");
  LLVMBuildCondBr(b, LLVMBuildAnd(b, red, own, ""), header, node);
  LLVMPositionBuilderAtEnd(b, header);
  LLVMBuildRet(b, rb_field(b, x, RB_RIGHT));
  LLVMPositionBuilderAtEnd(b, node);
  rb_step(b, fn, x, RB_LEFT, &cx, &cy);
  LLVMBuildRet(b, cy);
  LLVMDisposeBuilder(b);
}

static LLVMValueRef rb_function(LLVMTypeRef type, const char *name, void (*build)(LLVMValueRef)) {
  LLVMValueRef fn = LLVMGetNamedFunction(kn_module.mod, name);
  if (fn)
    return fn;
  fn = LLVMAddFunction(kn_module.mod, name, type);
  LLVMSetLinkage(fn, LLVMInternalLinkage);
  build(fn);
  return fn;
}

static LLVMValueRef rb_increment_function(LLVMTypeRef type) {
  return rb_function(type, "kinase.model.rb_increment", build_rb_increment);
}

static LLVMValueRef rb_decrement_function(LLVMTypeRef type) {
  return rb_function(type, "kinase.model.rb_decrement", build_rb_decrement);
}

/* _Rb_tree_increment(x) and _Rb_tree_decrement(x), in libstdc++: the next
 * and previous nodes of std::map's and std::set's iterators. The walk,
 * in place of the call, reads the addresses of the nodes it visits, so the
 * node it returns has the shadow at the same place in the shadow tree. */
LLVMValueRef model_rb_increment(LLVMBuilderRef b, LLVMValueRef *p, LLVMTypeRef result) {
  return model_call_in_place(b, p, 1, result, rb_increment_function);
}

LLVMValueRef model_rb_decrement(LLVMBuilderRef b, LLVMValueRef *p, LLVMTypeRef result) {
  return model_call_in_place(b, p, 1, result, rb_decrement_function);
}

/* ---- insertion ---- */

static int rb_other(int side) { return side == RB_LEFT ? RB_RIGHT : RB_LEFT; }

static LLVMValueRef rb_is_red(LLVMBuilderRef b, LLVMValueRef node) {
  return LLVMBuildICmp(b, LLVMIntEQ, rb_field(b, node, RB_COLOUR),
                       LLVMConstInt(LLVMInt32TypeInContext(kn_module.ctx), RB_RED, 0), "");
}

/* Branches on `cond` to a block that `then` fills, then joins; the builder
 * is left at the join. */
static void rb_if(LLVMBuilderRef b, LLVMValueRef fn, LLVMValueRef cond, void (*then)(LLVMBuilderRef, void *),
                  void *data) {
  LLVMBasicBlockRef yes = rb_block(fn, "then"), join = rb_block(fn, "join");
  LLVMBuildCondBr(b, cond, yes, join);
  LLVMPositionBuilderAtEnd(b, yes);
  then(b, data);
  LLVMBuildBr(b, join);
  LLVMPositionBuilderAtEnd(b, join);
}

typedef struct {
  LLVMValueRef node, value;
  int field;
} RbStore;

static void rb_store_then(LLVMBuilderRef b, void *data) {
  RbStore *s = data;
  rb_set(b, s->node, s->field, s->value);
}

/* libstdc++'s local_Rb_tree_rotate_left (`up` RB_RIGHT: x's right child
 * y takes x's place, x becomes y's left child) and rotate_right (`up`
 * RB_LEFT); the root is the header's parent:
 *   y = x->up; x->up = y->down; if (y->down) y->down->parent = x;
 *   y->parent = x->parent;
 *   if (x == root) root = y; else if (x == x->parent->left) x->parent->left = y;
 *   else x->parent->right = y;
 *   y->down = x; x->parent = y; */
static void rb_rotate(LLVMBuilderRef b, LLVMValueRef fn, LLVMValueRef x, LLVMValueRef header, int up) {
  int down = rb_other(up);
  LLVMValueRef y = rb_field(b, x, up), inner = rb_field(b, y, down);
  rb_set(b, x, up, inner);
  RbStore adopt = {inner, x, RB_PARENT};
  rb_if(b, fn, LLVMBuildIsNotNull(b, inner, ""), rb_store_then, &adopt);
  LLVMValueRef parent = rb_field(b, x, RB_PARENT);
  rb_set(b, y, RB_PARENT, parent);
  LLVMBasicBlockRef root = rb_block(fn, "root"), child = rb_block(fn, "child"), left = rb_block(fn, "left"),
                    right = rb_block(fn, "right"), done = rb_block(fn, "rotated");
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, x, rb_field(b, header, RB_PARENT), ""), root, child);
  LLVMPositionBuilderAtEnd(b, root);
  rb_set(b, header, RB_PARENT, y);
  LLVMBuildBr(b, done);
  LLVMPositionBuilderAtEnd(b, child);
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, x, rb_field(b, parent, RB_LEFT), ""), left, right);
  LLVMPositionBuilderAtEnd(b, left);
  rb_set(b, parent, RB_LEFT, y);
  LLVMBuildBr(b, done);
  LLVMPositionBuilderAtEnd(b, right);
  rb_set(b, parent, RB_RIGHT, y);
  LLVMBuildBr(b, done);
  LLVMPositionBuilderAtEnd(b, done);
  rb_set(b, y, down, x);
  rb_set(b, x, RB_PARENT, y);
}

/* One step of the rebalancing loop where x's parent xp is red and is the
 * `side` child of its parent xpp (x in the slot `at`, a local):
 *   y = xpp->other;
 *   if (y && y is red) { xp, y black; xpp red; x = xpp; }
 *   else { if (x == xp->other) { x = xp; rotate x toward side; }
 *          x->parent black; xpp red; rotate xpp the other way; }
 * The builder ends in a block that goes back to the loop's test. */
static void rb_fix_side(LLVMBuilderRef b, LLVMValueRef fn, LLVMValueRef at, LLVMValueRef header, LLVMValueRef xp,
                        LLVMValueRef xpp, int side) {
  LLVMTypeRef ptr = LLVMTypeOf(header);
  int other = rb_other(side);
  LLVMBasicBlockRef uncle = rb_block(fn, "uncle"), recolour = rb_block(fn, "recolour"),
                    rotate = rb_block(fn, "rotate"), inner = rb_block(fn, "inner"), outer = rb_block(fn, "outer");
  LLVMValueRef y = rb_field(b, xpp, other);
  LLVMBuildCondBr(b, LLVMBuildIsNotNull(b, y, ""), uncle, rotate);
  LLVMPositionBuilderAtEnd(b, uncle);
  LLVMBuildCondBr(b, rb_is_red(b, y), recolour, rotate);
  LLVMPositionBuilderAtEnd(b, recolour);
  rb_colour(b, xp, RB_BLACK);
  rb_colour(b, y, RB_BLACK);
  rb_colour(b, xpp, RB_RED);
  LLVMBuildStore(b, xpp, at);
  LLVMBasicBlockRef done = rb_block(fn, "fixed");
  LLVMBuildBr(b, done);
  LLVMPositionBuilderAtEnd(b, rotate);
  LLVMValueRef x = LLVMBuildLoad2(b, ptr, at, "x");
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, x, rb_field(b, xp, other), ""), inner, outer);
  LLVMPositionBuilderAtEnd(b, inner);
  LLVMBuildStore(b, xp, at);
  rb_rotate(b, fn, xp, header, other);
  LLVMBuildBr(b, outer);
  LLVMPositionBuilderAtEnd(b, outer);
  x = LLVMBuildLoad2(b, ptr, at, "x");
  rb_colour(b, rb_field(b, x, RB_PARENT), RB_BLACK);
  rb_colour(b, xpp, RB_RED);
  rb_rotate(b, fn, xpp, header, side);
  LLVMBuildBr(b, done);
  LLVMPositionBuilderAtEnd(b, done);
}

/* kinase.model.rb_insert(left, x, p, header), libstdc++'s
 * _Rb_tree_insert_and_rebalance: links the new node x as p's left (or
 * right) child, keeps the header's root, leftmost and rightmost, and
 * rebalances:
 *   while (x != root && x->parent is red) rb_fix_side(left or right);
 *   root is black */
static void build_rb_insert(LLVMValueRef fn) {
  LLVMBuilderRef b = LLVMCreateBuilderInContext(kn_module.ctx);
  LLVMValueRef left = LLVMGetParam(fn, 0), x = LLVMGetParam(fn, 1), p = LLVMGetParam(fn, 2),
               header = LLVMGetParam(fn, 3);
  LLVMTypeRef ptr = LLVMTypeOf(x);
  LLVMValueRef null = LLVMConstNull(ptr);
  LLVMPositionBuilderAtEnd(b, rb_block(fn, "entry"));
  LLVMValueRef at = LLVMBuildAlloca(b, ptr, "x.slot");
  LLVMBuildStore(b, x, at);
  rb_set(b, x, RB_PARENT, p);
  rb_set(b, x, RB_LEFT, null);
  rb_set(b, x, RB_RIGHT, null);
  rb_colour(b, x, RB_RED);
  LLVMBasicBlockRef on_left = rb_block(fn, "on_left"), on_right = rb_block(fn, "on_right"),
                    first = rb_block(fn, "first"), not_first = rb_block(fn, "not_first"), test = rb_block(fn, "test");
  LLVMBuildCondBr(b, left, on_left, on_right);
  /* p->left = x; the first node is the root and the rightmost; else the
   * leftmost moves to x where p was it */
  LLVMPositionBuilderAtEnd(b, on_left);
  rb_set(b, p, RB_LEFT, x);
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, p, header, ""), first, not_first);
  LLVMPositionBuilderAtEnd(b, first);
  rb_set(b, header, RB_PARENT, x);
  rb_set(b, header, RB_RIGHT, x);
  LLVMBuildBr(b, test);
  LLVMPositionBuilderAtEnd(b, not_first);
  RbStore leftmost = {header, x, RB_LEFT};
  rb_if(b, fn, LLVMBuildICmp(b, LLVMIntEQ, p, rb_field(b, header, RB_LEFT), ""), rb_store_then, &leftmost);
  LLVMBuildBr(b, test);
  /* p->right = x; the rightmost moves to x where p was it */
  LLVMPositionBuilderAtEnd(b, on_right);
  rb_set(b, p, RB_RIGHT, x);
  RbStore rightmost = {header, x, RB_RIGHT};
  rb_if(b, fn, LLVMBuildICmp(b, LLVMIntEQ, p, rb_field(b, header, RB_RIGHT), ""), rb_store_then, &rightmost);
  LLVMBuildBr(b, test);
  /* the rebalancing loop */
  LLVMBasicBlockRef parent_red = rb_block(fn, "parent_red"), step = rb_block(fn, "step"),
                    left_side = rb_block(fn, "left_side"), right_side = rb_block(fn, "right_side"),
                    done = rb_block(fn, "done");
  LLVMPositionBuilderAtEnd(b, test);
  LLVMValueRef cx = LLVMBuildLoad2(b, ptr, at, "x");
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntNE, cx, rb_field(b, header, RB_PARENT), ""), parent_red, done);
  LLVMPositionBuilderAtEnd(b, parent_red);
  LLVMValueRef xp = rb_field(b, cx, RB_PARENT);
  LLVMBuildCondBr(b, rb_is_red(b, xp), step, done);
  LLVMPositionBuilderAtEnd(b, step);
  LLVMValueRef xpp = rb_field(b, xp, RB_PARENT);
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, xp, rb_field(b, xpp, RB_LEFT), ""), left_side, right_side);
  LLVMPositionBuilderAtEnd(b, left_side);
  rb_fix_side(b, fn, at, header, xp, xpp, RB_LEFT);
  LLVMBuildBr(b, test);
  LLVMPositionBuilderAtEnd(b, right_side);
  rb_fix_side(b, fn, at, header, xp, xpp, RB_RIGHT);
  LLVMBuildBr(b, test);
  LLVMPositionBuilderAtEnd(b, done);
  rb_colour(b, rb_field(b, header, RB_PARENT), RB_BLACK);
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
}

static LLVMValueRef rb_insert_function(LLVMTypeRef type) {
  return rb_function(type, "kinase.model.rb_insert", build_rb_insert);
}

/* _Rb_tree_insert_and_rebalance(left, x, p, header), in libstdc++: links a
 * new node into std::map's or std::set's tree (operator[], insert,
 * emplace). In place of the call, the insertion's stores of addresses are
 * made on the shadow tree too, at the same places. */
LLVMValueRef model_rb_insert(LLVMBuilderRef b, LLVMValueRef *p, LLVMTypeRef result) {
  return model_call_in_place(b, p, 4, result, rb_insert_function);
}
