/* What a C++ function's pointer parameters point to, as its source says.
 *
 * With opaque pointers a parameter is `ptr` whatever it points to, and
 * unoptimised code has no TBAA; but a C++ function's mangled name spells
 * its parameters' types: Eigen's `DefaultDevice::get<float *>(float *)`
 * takes floats, which is what the tensors' untyped copies between such
 * pointers move (copytypes.c). The name is read demangled, its parameter
 * list split at the top level. */
#include "kinase.h"

#include <stdlib.h>
#include <string.h>

char *__cxa_demangle(const char *mangled, char *buffer, size_t *length, int *status);

/* The scalars a parameter may point to that copies tell apart, named as
 * clang's TBAA names them (kn_tbaa_named_type): the floats, and the
 * integers as wide as the one integer type copies are split into. */
static const char *const scalar_names[] = {"float", "double", "long", NULL};

/* cuda_fp16.h's and cuda_bf16.h's 16-bit floats and their pairs: a
 * kernel's `__half *` moves halves even where it only copies them, as
 * 16-bit integers (`y[i] = x[perm[i]]`). */
static const char *const sixteen_bit_names[] = {"__half", "__half2", "__nv_bfloat16", "__nv_bfloat162", NULL};

static LLVMTypeRef sixteen_bit_named(const char *name) {
  return strncmp(name, "__half", 6) ? LLVMBFloatTypeInContext(kn_module.ctx) : LLVMHalfTypeInContext(kn_module.ctx);
}

static bool ends_with(const char *s, size_t len, const char *tail) {
  size_t n = strlen(tail);
  return len >= n && !strncmp(s + len - n, tail, n);
}

/* The type a parameter's spelling `s` (len bytes: "float const*",
 * "double&", "float* __restrict") points or refers to, when it is one of
 * `names` (its types given by `types`); NULL if it is no pointer or
 * reference to one of them. */
static LLVMTypeRef pointee_of(const char *s, size_t len, const char *const *names,
                              LLVMTypeRef (*type_named)(const char *)) {
  static const char *const qualifiers[] = {" __restrict", " const", " volatile"};
  for (bool again = true; again;) {
    again = false;
    for (size_t q = 0; q < sizeof qualifiers / sizeof *qualifiers; q++)
      if (ends_with(s, len, qualifiers[q])) {
        len -= strlen(qualifiers[q]);
        again = true;
      }
  }
  if (!len || (s[len - 1] != '*' && s[len - 1] != '&'))
    return NULL;
  len -= ends_with(s, len, "&&") ? 2 : 1;
  if (ends_with(s, len, " const"))
    len -= strlen(" const");
  for (size_t i = 0; names[i]; i++)
    if (strlen(names[i]) == len && !strncmp(s, names[i], len))
      return type_named(names[i]);
  return NULL;
}

/* Where the parameter list of the demangled `name` opens: the '(' that
 * the last ')' closes (qualifiers such as " const" may follow it). */
static const char *parameter_list(const char *name) {
  const char *close = strrchr(name, ')');
  int depth = 0;
  for (const char *c = close; c && c >= name; c--) {
    depth += (*c == ')') - (*c == '(');
    if (!depth)
      return c;
  }
  return NULL;
}

/* Parameter `wanted` of the list opening at `open`: its spelling and
 * length in *len, or NULL when there are fewer; *count is the number of
 * parameters. */
static const char *nth_parameter(const char *open, unsigned wanted, size_t *len, unsigned *count) {
  const char *found = NULL, *start = open + 1;
  int depth = 0;
  *count = 0;
  for (const char *c = start;; c++) {
    if (depth == 0 && (*c == ',' || *c == ')')) {
      if (c > start) {
        if (*count == wanted) {
          found = start;
          *len = (size_t)(c - start);
        }
        ++*count;
      }
      if (*c == ')')
        return found;
      start = c + 2; /* past ", " */
      continue;
    }
    depth += (*c == '(' || *c == '<') - (*c == ')' || *c == '>');
  }
}

static LLVMTypeRef spelled_pointee(LLVMValueRef fn, unsigned index, const char *const *names,
                                   LLVMTypeRef (*type_named)(const char *)) {
  const char *mangled = kn_function_name(fn);
  if (strncmp(mangled, "_Z", 2))
    return NULL;
  int status = -1;
  char *name = __cxa_demangle(mangled, NULL, NULL, &status);
  const char *open = status == 0 && name ? parameter_list(name) : NULL;
  LLVMTypeRef type = NULL;
  if (open) {
    /* The IR's first parameters may be the source's hidden ones: the
     * result's place (sret), then `this`, which the list does not show. */
    unsigned ir_count = LLVMCountParams(fn), count = 0, hidden = 0;
    size_t len = 0;
    nth_parameter(open, 0, &len, &count);
    if (ir_count && LLVMGetEnumAttributeAtIndex(fn, 1, LLVMGetEnumAttributeKindForName("sret", 4)))
      hidden++;
    if (ir_count == count + hidden + 1)
      hidden++;
    const char *spelled = index >= hidden && ir_count == count + hidden
                              ? nth_parameter(open, index - hidden, &len, &count)
                              : NULL;
    type = spelled ? pointee_of(spelled, len, names, type_named) : NULL;
  }
  free(name);
  return type;
}

LLVMTypeRef param_pointee_type(LLVMValueRef fn, unsigned index) {
  return spelled_pointee(fn, index, scalar_names, kn_tbaa_named_type);
}

LLVMTypeRef param_pointee_sixteen_bit(LLVMValueRef fn, unsigned index) {
  return spelled_pointee(fn, index, sixteen_bit_names, sixteen_bit_named);
}

/* ---- classes a parameter refers to ----
 * A parameter spelled `F const&` (std::function's manager copying the
 * closure it holds, `_M_create<F const&>`, reached only through a pointer
 * to its manager) refers to a class, which the IR knows as a struct type
 * with no name of the source's: the type its member functions address
 * `this` with (a lambda's operator() reads its captures so). */

/* The class a parameter spelled `s` (len bytes) refers or points to, as
 * a new string, or NULL where it is no reference or pointer. */
static char *referred_class(const char *s, size_t len) {
  while (len && (s[len - 1] == '&' || s[len - 1] == '*'))
    len--;
  bool referred = len && s[len] != '\0' && (s[len] == '&' || s[len] == '*');
  if (ends_with(s, len, " const"))
    len -= strlen(" const");
  if (!referred || !len)
    return NULL;
  char *cls = malloc(len + 1);
  memcpy(cls, s, len);
  cls[len] = '\0';
  return cls;
}

/* Whether the demangled `name` is a member function of `cls`: its
 * qualified name (before the parameter list, after any return type) is
 * `cls::member`. */
static bool member_of(const char *name, const char *cls) {
  const char *open = parameter_list(name);
  size_t n = strlen(cls);
  for (const char *at = strstr(name, cls); open && at && at < open; at = strstr(at + 1, cls)) {
    const char *member = at + n;
    if ((at == name || at[-1] == ' ') && !strncmp(member, "::", 2) && member + 2 < open) {
      bool simple = true;
      for (const char *c = member + 2; c + 1 < open && simple; c++)
        simple = strncmp(c, "::", 2) != 0;
      if (simple)
        return true;
    }
  }
  return false;
}

/* The struct type `this` of `fn` is addressed with: by a GEP over it,
 * directly or through the slot unoptimised code keeps it in. */
static LLVMTypeRef this_struct_type(LLVMValueRef fn) {
  LLVMValueRef self = LLVMCountParams(fn) ? LLVMGetParam(fn, 0) : NULL;
  LLVMValueRef values[8];
  int count = self ? 1 : 0;
  if (self)
    values[0] = self;
  for (LLVMUseRef u = self ? LLVMGetFirstUse(self) : NULL; u; u = LLVMGetNextUse(u)) {
    LLVMValueRef store = LLVMGetUser(u);
    LLVMValueRef slot = LLVMIsAStoreInst(store) && LLVMGetOperand(store, 0) == self ? LLVMGetOperand(store, 1) : NULL;
    for (LLVMUseRef v = slot && LLVMIsAAllocaInst(slot) ? LLVMGetFirstUse(slot) : NULL; v && count < 8;
         v = LLVMGetNextUse(v))
      if (LLVMIsALoadInst(LLVMGetUser(v)))
        values[count++] = LLVMGetUser(v);
  }
  for (int i = 0; i < count; i++)
    for (LLVMUseRef u = LLVMGetFirstUse(values[i]); u; u = LLVMGetNextUse(u)) {
      LLVMValueRef gep = LLVMGetUser(u);
      if (LLVMIsAGetElementPtrInst(gep) && LLVMGetOperand(gep, 0) == values[i] &&
          LLVMGetTypeKind(LLVMGetGEPSourceElementType(gep)) == LLVMStructTypeKind)
        return LLVMGetGEPSourceElementType(gep);
    }
  return NULL;
}

/* The struct type clang names after the class `cls` ("struct.Shifted",
 * "class.ns::Model"), where it has `size` bytes: a class with no member
 * function of its own (a functor deriving its operator() from a base).
 * Not a template's: clang names its instances alike, told apart by
 * numbers. */
static LLVMTypeRef named_class_type(const char *cls, uint64_t size) {
  static const char *const kinds[] = {"struct", "class"};
  if (strchr(cls, '<'))
    return NULL;
  for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
    char *name = kn_strdup_printf("%s.%s", kinds[k], cls);
    LLVMTypeRef type = LLVMGetTypeByName2(kn_module.ctx, name);
    free(name);
    if (type && !LLVMIsOpaqueStruct(type) &&
        LLVMABISizeOfType(kn_module.layout, type) == size)
      return type;
  }
  return NULL;
}

/* The struct type of `size` bytes the member functions of `cls` in the
 * module address `this` with, where they agree; else the one named after
 * it. */
static LLVMTypeRef class_struct_type(const char *cls, uint64_t size) {
  LLVMTypeRef agreed = NULL;
  for (LLVMValueRef fn = LLVMGetFirstFunction(kn_module.mod); fn; fn = LLVMGetNextFunction(fn)) {
    const char *mangled = kn_function_name(fn);
    if (LLVMIsDeclaration(fn) || strncmp(mangled, "_Z", 2))
      continue;
    int status = -1;
    char *name = __cxa_demangle(mangled, NULL, NULL, &status);
    LLVMTypeRef type = status == 0 && name && member_of(name, cls) ? this_struct_type(fn) : NULL;
    free(name);
    if (type && LLVMABISizeOfType(kn_module.layout, type) == size) {
      if (agreed && agreed != type)
        return NULL;
      agreed = type;
    }
  }
  return agreed ? agreed : named_class_type(cls, size);
}

LLVMTypeRef param_class_type(LLVMValueRef fn, unsigned index) {
  const char *mangled = kn_function_name(fn);
  unsigned dereferenceable = LLVMGetEnumAttributeKindForName("dereferenceable", 15);
  LLVMAttributeRef attr = LLVMGetEnumAttributeAtIndex(fn, index + 1, dereferenceable);
  uint64_t size = attr ? LLVMGetEnumAttributeValue(attr) : 0;
  if (!size || strncmp(mangled, "_Z", 2))
    return NULL;
  int status = -1;
  char *name = __cxa_demangle(mangled, NULL, NULL, &status);
  const char *open = status == 0 && name ? parameter_list(name) : NULL;
  LLVMTypeRef agreed = NULL;
  /* Parameters the IR leaves out (an empty class passed by value) and a
   * hidden `this` make the position uncertain: each candidate must name a
   * class of the size the IR says the parameter refers to. */
  for (unsigned hidden = 0; open && hidden <= 2 && hidden <= index; hidden++) {
    size_t len = 0;
    unsigned count = 0;
    const char *spelled = nth_parameter(open, index - hidden, &len, &count);
    char *cls = spelled ? referred_class(spelled, len) : NULL;
    LLVMTypeRef type = cls ? class_struct_type(cls, size) : NULL;
    free(cls);
    if (type && agreed && type != agreed) {
      agreed = NULL;
      break;
    }
    agreed = type ? type : agreed;
  }
  free(name);
  return agreed;
}
