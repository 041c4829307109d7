/* The C++ standard library's functions that a program calls but libstdc++
 * defines. Streams, locales, strings and exceptions: no derivative
 * flows through them, as none flows through printf. Their functions are
 * many (one per character type and overload) and mostly declared, not
 * defined, in a program (libstdc++ has them), so they are named here by the
 * prefixes of their mangled names: the classes' members and the stream
 * operators. Reading a number from a stream (operator>>) gives a constant.
 * std::list's linking of nodes and std::map's and std::set's walk from node
 * to node: models (models.def), below. */
#include "kinase.h"

#include <string.h>

static const char *const inactive_prefixes[] = {
    /* std::ostream, std::istream, std::iostream (char), and the templates */
    "_ZNSo", "_ZNKSo", "_ZNSi", "_ZNKSi", "_ZNSd", "_ZNKSd",
    "_ZNSt13basic_ostream", "_ZNKSt13basic_ostream", "_ZNSt13basic_istream",
    "_ZNKSt13basic_istream", "_ZNSt14basic_iostream",
    /* their bases, buffers and file and string streams */
    "_ZNSt9basic_ios", "_ZNKSt9basic_ios", "_ZNSt8ios_base", "_ZNKSt8ios_base",
    "_ZNSt15basic_streambuf", "_ZNKSt15basic_streambuf", "_ZNSt13basic_filebuf",
    "_ZNKSt13basic_filebuf", "_ZNSt14basic_ifstream", "_ZNKSt14basic_ifstream",
    "_ZNSt14basic_ofstream", "_ZNKSt14basic_ofstream", "_ZNSt13basic_fstream",
    "_ZNKSt13basic_fstream", "_ZNSt7__cxx1115basic_stringbuf", "_ZNKSt7__cxx1115basic_stringbuf",
    "_ZNSt7__cxx1118basic_stringstream", "_ZNKSt7__cxx1118basic_stringstream",
    "_ZNSt7__cxx1119basic_ostringstream", "_ZNKSt7__cxx1119basic_ostringstream",
    "_ZNSt7__cxx1119basic_istringstream", "_ZNKSt7__cxx1119basic_istringstream",
    /* std::locale */
    "_ZNSt6locale", "_ZNKSt6locale",
    /* std::string, its allocator, operator+ and std::to_string */
    "_ZNSt7__cxx1112basic_string", "_ZNKSt7__cxx1112basic_string", "_ZNSaIcE", "_ZNSaIwE",
    "_ZStplIcSt11char_traitsIcE", "_ZStplIwSt11char_traitsIwE", "_ZNSt7__cxx119to_string",
    "_ZN9__gnu_cxx12__to_xstring",
    /* operator<< and operator>> on streams, std::endl, std::flush, std::ends */
    "_ZStlsI", "_ZStrsI", "_ZSt4endlI", "_ZSt5flushI", "_ZSt4endsI", "_ZSt16__ostream_insertI",
    /* the standard exceptions an error check throws, with their messages:
     * their constructors, destructors and what() */
    "_ZNSt9exception", "_ZNKSt9exception", "_ZNSt13runtime_error", "_ZNKSt13runtime_error",
    "_ZNSt11logic_error", "_ZNKSt11logic_error", "_ZNSt16invalid_argument", "_ZNSt12out_of_range",
    "_ZNSt12domain_error", "_ZNSt12length_error", "_ZNSt11range_error", "_ZNSt14overflow_error",
    "_ZNSt15underflow_error",
    /* hashing of keys (std::unordered_map), the hash table's sizing */
    "_ZSt11_Hash_bytes", "_ZSt15_Fnv_hash_bytes", "_ZNKSt8__detail20_Prime_rehash_policy",
};

bool cxxlib_is_inactive(const char *name) {
  if (strncmp(name, "_ZN", 3) && strncmp(name, "_ZSt", 4))
    return false;
  for (size_t i = 0; i < sizeof inactive_prefixes / sizeof *inactive_prefixes; i++)
    if (!strncmp(name, inactive_prefixes[i], strlen(inactive_prefixes[i])))
      return true;
  return false;
}

/* A std::list node (std::__detail::_List_node_base): the next node's
 * address, then the previous one's. */
static LLVMValueRef link_field(LLVMBuilderRef b, LLVMValueRef node, bool previous) {
  LLVMTypeRef byte = LLVMInt8TypeInContext(kn_module.ctx);
  LLVMValueRef offset = LLVMConstInt(LLVMInt64TypeInContext(kn_module.ctx),
                                     previous ? LLVMPointerSize(kn_module.layout) : 0, 0);
  return LLVMBuildGEP2(b, byte, node, &offset, 1, previous ? "prev" : "next");
}

static LLVMValueRef load_link(LLVMBuilderRef b, LLVMValueRef node, bool previous) {
  return LLVMBuildLoad2(b, LLVMTypeOf(node), link_field(b, node, previous), "");
}

/* node->_M_hook(position): links `node` in before `position`, as
 * push_back and insert do. Only addresses move: the shadow list is linked
 * alike, shadow node before shadow position. */
LLVMValueRef model_list_hook(LLVMBuilderRef b, LLVMValueRef *p, LLVMTypeRef result) {
  (void)result;
  LLVMValueRef node = p[0], position = p[1];
  LLVMValueRef before = load_link(b, position, true);
  LLVMBuildStore(b, position, link_field(b, node, false));
  LLVMBuildStore(b, before, link_field(b, node, true));
  LLVMBuildStore(b, node, link_field(b, before, false));
  LLVMBuildStore(b, node, link_field(b, position, true));
  return NULL;
}

/* node->_M_unhook(): takes `node` out of its list, as pop_back and erase do. */
LLVMValueRef model_list_unhook(LLVMBuilderRef b, LLVMValueRef *p, LLVMTypeRef result) {
  (void)result;
  LLVMValueRef next = load_link(b, p[0], false), previous = load_link(b, p[0], true);
  LLVMBuildStore(b, next, link_field(b, previous, false));
  LLVMBuildStore(b, previous, link_field(b, next, true));
  return NULL;
}

/* A red-black tree's node (std::_Rb_tree_node_base): its colour (red 0),
 * then the addresses of its parent, left child and right child. */
enum { RB_COLOUR, RB_PARENT, RB_LEFT, RB_RIGHT };

static LLVMValueRef rb_field(LLVMBuilderRef b, LLVMValueRef node, int field) {
  LLVMTypeRef byte = LLVMInt8TypeInContext(kn_module.ctx);
  unsigned long long at = field == RB_COLOUR ? 0 : (unsigned long long)field * LLVMPointerSize(kn_module.layout);
  LLVMValueRef offset = LLVMConstInt(LLVMInt64TypeInContext(kn_module.ctx), at, 0);
  LLVMValueRef address = LLVMBuildGEP2(b, byte, node, &offset, 1, "");
  LLVMTypeRef type = field == RB_COLOUR ? LLVMInt32TypeInContext(kn_module.ctx) : LLVMTypeOf(node);
  return LLVMBuildLoad2(b, type, address, "");
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
