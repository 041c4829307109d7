; Forward mode, integer index arithmetic: the index math is integer and not
; varied, so no float code is generated for it; the shadow is addressed with
; the same index as the primal.
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s
; RUN: %opt -passes=kinase -S %s | FileCheck %s --check-prefix=NOINT

@enzyme_dup = external global i32

declare double @__enzyme_fwddiff(ptr, ...)

; sum of a[2 i + 1] for i in [0, n)
define internal double @f(ptr %a, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s.next, %loop ]
  %j = mul i64 %i, 2
  %k = add i64 %j, 1
  %gep = getelementptr inbounds double, ptr %a, i64 %k
  %v = load double, ptr %gep
  %s.next = fadd double %s, %v
  %i.next = add i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret double %s.next
}

define double @test(ptr %a, ptr %da, i64 %n) {
  %dup = load i32, ptr @enzyme_dup
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, i32 %dup, ptr %a, ptr %da, i64 %n)
  ret double %r
}

; CHECK-LABEL: define internal double @__kinase_fwd_f(ptr %a, ptr %d.a, i64 %n)
; CHECK-NOT:     {{fmul|fdiv|sitofp|uitofp|fptosi|fptoui}}
; CHECK:       loop:
; CHECK-NEXT:    %i = phi i64
; CHECK-NEXT:    [[DS:%.*]] = phi double [ 0.000000e+00, %entry ], [ [[DNEXT:%.*]], %loop ]
; CHECK-NOT:     phi
; CHECK:         getelementptr {{.*}}ptr %d.a
; CHECK:         [[DV:%.*]] = load double, ptr
; CHECK-NEXT:    [[DNEXT]] = fadd double [[DS]], [[DV]]
; CHECK-NOT:     {{fmul|fdiv|sitofp|uitofp|fptosi|fptoui}}
; CHECK:         ret double [[DNEXT]]

; No integer value has a tangent twin (d.<name>).
; NOINT-NOT: {{%d\.(i|j|k|i\.next|done)[ ,]}}
