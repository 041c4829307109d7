; A load through a phi of two addresses, one into dup memory and one into
; enzyme_const memory (what instcombine makes of `i > 0 ? u[i - 1] : bc[0]`):
; the pointer would need a shadow on one side only. The copy gets one load
; per path again before it is differentiated (lib/core/splitloads.c; here
; through the select simplifycfg makes of the phi): the tangent is loaded
; from the shadow on the dup side only, and is zero on the other.
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

@enzyme_dup = external global i32
@enzyme_const = external global i32
declare double @__enzyme_fwddiff(ptr, ...)

define internal double @left(ptr %bc, ptr %u, i64 %i) {
entry:
  %inside = icmp sgt i64 %i, 0
  br i1 %inside, label %from_u, label %from_bc
from_u:
  %j = add i64 %i, -1
  %pu = getelementptr inbounds double, ptr %u, i64 %j
  br label %join
from_bc:
  br label %join
join:
  %p = phi ptr [ %pu, %from_u ], [ %bc, %from_bc ]
  %v = load double, ptr %p
  %w = fmul double %v, %v
  ret double %w
}

define double @test(ptr %bc, ptr %u, ptr %du, i64 %i) {
  %d = load i32, ptr @enzyme_dup
  %k = load i32, ptr @enzyme_const
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @left, i32 %k, ptr %bc, i32 %d, ptr %u, ptr %du, i32 %k, i64 %i)
  ret double %r
}

; CHECK-LABEL: define internal {{.*}} @__kinase_fwd_left(
; CHECK: choose.true:
; CHECK: [[SHADOW:%.*]] = getelementptr i8, ptr %{{.*}}, i64 -8
; CHECK: [[TANGENT:%.*]] = load double, ptr [[SHADOW]]
; CHECK: phi double [ [[TANGENT]], %choose.true ], [ 0.000000e+00, %entry ]
