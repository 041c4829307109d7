; Devirtualising an indirect call splits its block: the phis of the block's
; successors then name the new block. Here %r merges the call's block and
; the entry; the rebuilt phi keeps its name. (The sanitizer corpus runs
; this file: the old phi's name used to be read after the phi was freed.)
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

@table = internal constant [2 x ptr] [ptr @sq, ptr @cube]
declare double @__enzyme_autodiff(ptr, ...)

define internal double @sq(double %t) {
  %y = fmul double %t, %t
  ret double %y
}

define internal double @cube(double %t) {
  %s = fmul double %t, %t
  %y = fmul double %s, %t
  ret double %y
}

define internal double @f(double %x, i64 %k) {
entry:
  %pos = fcmp ogt double %x, 0.0
  br i1 %pos, label %call, label %join
call:
  %slot = getelementptr [2 x ptr], ptr @table, i64 0, i64 %k
  %g = load ptr, ptr %slot
  %v = call double %g(double %x)
  br label %join
join:
  %r = phi double [ %v, %call ], [ %x, %entry ]
  %out = fadd double %r, 1.0
  ret double %out
}

define double @test(double %x, i64 %k) {
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double %x, i64 %k)
  ret double %d
}

; The comparisons became a switch on the table index (instcombine reads the
; constant table), each case calling its function's augmented sweep.
; CHECK-LABEL: define internal {{.*}} @__kinase_aug_f(
; CHECK:         call { double, ptr } @__kinase_aug_sq(double %x{{.*}})
; CHECK:         call { double, ptr } @__kinase_aug_cube(double %x{{.*}})
; CHECK:       join:
; CHECK:         %r = phi double [ %x, %entry ]
