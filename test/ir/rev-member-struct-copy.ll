; A struct holding pointers copied whole into a member (a typed field of
; another struct: std::valarray's expression closures hold a double beside a
; reference) is copied field by field: the memcpy becomes one load and store
; per field, so that the double's adjoint flows back and the pointer's shadow
; is copied, where the whole copy was refused ("holding both pointers and
; floats"). The holder's other member holds only pointers.
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

%closure = type { double, ptr }
%holder = type { ptr, %closure }

@enzyme_dup = external global i32
declare double @__enzyme_autodiff(ptr, ...)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

; holder.second = *c; return holder.second.scale * *holder.second.array
define internal double @scaled(ptr %h, ptr %c) {
entry:
  %field = getelementptr inbounds %holder, ptr %h, i32 0, i32 1
  call void @llvm.memcpy.p0.p0.i64(ptr %field, ptr %c, i64 16, i1 false)
  %scale = load double, ptr %field
  %at = getelementptr inbounds %closure, ptr %field, i32 0, i32 1
  %array = load ptr, ptr %at
  %x = load double, ptr %array
  %r = fmul double %scale, %x
  ret double %r
}

define double @grad(ptr %h, ptr %dh, ptr %c, ptr %dc) {
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @scaled, ptr @enzyme_dup, ptr %h, ptr %dh,
                                                 ptr @enzyme_dup, ptr %c, ptr %dc)
  ret double %r
}

; The reverse sweep moves the double's adjoint from the member's shadow
; into the source's, clearing the member's.
; CHECK-LABEL: define internal void @__kinase_rev_scaled(
; CHECK-NOT: memcpy
; CHECK: [[MEMBER:%.*]] = getelementptr inbounds nuw i8, ptr %d.h, i64 8
; CHECK: load double, ptr [[MEMBER]], align 1
; CHECK: store double 0.000000e+00, ptr [[MEMBER]], align 1
; CHECK: load double, ptr %d.c, align 1
; CHECK: store double %{{.*}}, ptr %d.c, align 1
; CHECK: ret void
; The augmented sweep copies the double, and the pointer with its shadow.
; CHECK-LABEL: define internal {{.*}} @__kinase_aug_scaled(
; CHECK-NOT: memcpy
; CHECK: [[SCALE:%.*]] = load double, ptr %c, align 1
; CHECK: store double [[SCALE]], ptr %field, align 1
; CHECK: [[ARRAY:%.*]] = load ptr, ptr %{{.*}}, align 1
; CHECK: [[SHADOW:%.*]] = load ptr, ptr %shadow{{.*}}, align 1
; CHECK: store ptr [[ARRAY]], ptr %{{.*}}, align 1
; CHECK: store ptr [[SHADOW]], ptr %shadow{{.*}}, align 1
; CHECK: ret
