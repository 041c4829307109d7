# cmake -DINPUT=file -DOUTPUT=file.c -DNAME=symbol -P embed.cmake: writes a C
# file defining `const char NAME[]`, the bytes of INPUT followed by a NUL.
file(READ "${INPUT}" hex HEX)
string(LENGTH "${hex}" length)
set(lines "")
set(at 0)
while(at LESS length)
  string(SUBSTRING "${hex}" ${at} 32 chunk) # 16 bytes a line
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," chunk "${chunk}")
  string(APPEND lines "  ${chunk}\n")
  math(EXPR at "${at} + 32")
endwhile()
file(WRITE "${OUTPUT}.tmp"
     "/* Generated from ${INPUT} by embed.cmake. */\n"
     "extern const char ${NAME}[];\n"
     "const char ${NAME}[] = {\n${lines}  0};\n")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
