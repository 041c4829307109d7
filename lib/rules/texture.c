/* Textures and surfaces in differentiated device code (rules/texture.def).
 * What a texture or surface holds lives in memory Kinase gives no shadow
 * (a CUDA array, or linear memory bound to a texture object), so a value
 * read from one is a constant of the derivative, said by a remark, and a
 * derivative that would flow into one (a coordinate that carries a
 * derivative, a value written to a surface) is an error at the instruction
 * rather than lost unseen. The assembly stays as it is. */
#include "kinase.h"

#include <stdlib.h>
#include <string.h>

static const struct {
  const char *opcode;
  TextureKind kind;
} texture_table[] = {
#define TEXTURE(opcode, kind) {opcode, kind},
#include "texture.def"
#undef TEXTURE
};

TextureKind texture_kind(LLVMValueRef call) {
  char *text = asm_describe(call);
  TextureKind kind = TEXTURE_NONE;
  /* The opcode may follow .reg declarations (the sparse fetches'
   * predicate): the first token that starts like a row's. */
  for (char *token = text; token && *token && kind == TEXTURE_NONE;) {
    size_t n = strcspn(token, " ");
    for (size_t k = 0; k < sizeof texture_table / sizeof *texture_table && kind == TEXTURE_NONE; k++)
      if (!strncmp(token, texture_table[k].opcode, strlen(texture_table[k].opcode)))
        kind = texture_table[k].kind;
    token += n + (token[n] != '\0');
  }
  free(text);
  return kind;
}

static bool any_operand_varied(ValueSet *varied, LLVMValueRef call) {
  for (unsigned i = 0, n = LLVMGetNumArgOperands(call); i < n; i++)
    if (vset_has(varied, LLVMGetOperand(call, i)))
      return true;
  return false;
}

bool texture_refused(ValueSet *varied, LLVMValueRef call, LLVMValueRef subject, const char *derivative) {
  TextureKind kind = texture_kind(call);
  if (kind == TEXTURE_NONE || kind == TEXTURE_QUERY)
    return false;
  if (kind == SURFACE_WRITE && any_operand_varied(varied, call)) {
    kn_error(call, subject, "it writes a value that carries a derivative to a surface (surf2Dwrite, "
                            "...): surfaces have no shadow in Kinase, so the derivative would be lost; "
                            "write the value to global memory instead");
    return true;
  }
  if (kind == TEXTURE_FETCH && any_operand_varied(varied, call)) {
    kn_error(call, subject, "it reads a texture (tex1Dfetch, tex2D, ...) at a coordinate that "
                            "carries a derivative: what textures hold has no shadow in Kinase, so "
                            "the derivative with respect to where it is read would be lost; read "
                            "the memory behind the texture through a pointer instead");
    return true;
  }
  if (kind != SURFACE_WRITE && derivative)
    kn_remark(KN_CONSTANT, call, subject, derivative,
              "the value read from a %s is a constant: %ss have no shadow, so no derivative flows "
              "through what they hold; read the memory through a pointer for its derivative",
              kind == TEXTURE_FETCH ? "texture" : "surface", kind == TEXTURE_FETCH ? "texture" : "surface");
  return false;
}
