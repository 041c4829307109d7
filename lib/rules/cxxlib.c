/* The C++ standard library's functions that a program calls but libstdc++
 * defines. Streams, locales, strings and exceptions: no derivative
 * flows through them, as none flows through printf. Their functions are
 * many (one per character type and overload) and mostly declared, not
 * defined, in a program (libstdc++ has them), so they are named here by the
 * prefixes of their mangled names: the classes' members and the stream
 * operators. Reading a number from a stream (operator>>) gives a constant.
 * std::list's linking of nodes: models (models.def), below; std::map's and
 * std::set's trees: rules/rbtree.c. */
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
