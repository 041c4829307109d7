; Through opt, with debug information: the error carries the file, line and
; column of the offending instruction.
; RUN: not %opt -passes=kinase -disable-output %s 2>&1 | FileCheck %s

; CHECK: error: err.c:7:12: in function h double (double): kinase: cannot differentiate 'h': external function 'ext' has no derivative rule and no body to differentiate{{$}}
; CHECK-NOT: error:

@enzyme_dup = external global i32

declare double @__enzyme_fwddiff(ptr, ...)
declare double @ext(double)

define internal double @h(double %x) !dbg !5 {
  %y = call double @ext(double %x), !dbg !8
  ret double %y, !dbg !8
}

define double @test(double %x) !dbg !9 {
  %dup = load i32, ptr @enzyme_dup
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @h, i32 %dup, double %x, double 1.0), !dbg !10
  ret double %r
}

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2, !3}

!0 = distinct !DICompileUnit(language: DW_LANG_C11, file: !1, producer: "hand", isOptimized: false, runtimeVersion: 0, emissionKind: FullDebug)
!1 = !DIFile(filename: "err.c", directory: "/src")
!2 = !{i32 7, !"Dwarf Version", i32 5}
!3 = !{i32 2, !"Debug Info Version", i32 3}
!4 = !DISubroutineType(types: !{})
!5 = distinct !DISubprogram(name: "h", scope: !1, file: !1, line: 6, type: !4, scopeLine: 6, spFlags: DISPFlagDefinition, unit: !0)
!8 = !DILocation(line: 7, column: 12, scope: !5)
!9 = distinct !DISubprogram(name: "test", scope: !1, file: !1, line: 10, type: !4, scopeLine: 10, spFlags: DISPFlagDefinition, unit: !0)
!10 = !DILocation(line: 11, column: 10, scope: !9)
