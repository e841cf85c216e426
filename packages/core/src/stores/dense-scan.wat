;; Dense scan of the embedded store: the dot product of one query with every
;; row of a row-major float32 matrix, four lanes at a time (WebAssembly SIMD).
;; Compiled into dense-scan-wasm.ts by `pnpm --filter @docs-chat/core build:wasm`;
;; a test checks that the two stay the same.
(module
  (memory (export "memory") 1)

  ;; out[r] = sum over d of query[d] * rows[r * dims + d], for r in [0, count).
  ;; All offsets are byte addresses; `dims` is a multiple of 4 and every
  ;; address 16-byte aligned. Four accumulators while 16 or more floats are
  ;; left in the row keep the adds independent; one for the rest.
  (func (export "scan")
    (param $query i32) (param $rows i32) (param $count i32) (param $dims i32) (param $out i32)
    (local $row i32) (local $rowEnd i32) (local $blockEnd i32) (local $q i32) (local $outEnd i32)
    (local $a v128) (local $b v128) (local $c v128) (local $d v128)
    (local.set $row (local.get $rows))
    (local.set $outEnd (i32.add (local.get $out) (i32.shl (local.get $count) (i32.const 2))))
    (block $done
      (loop $eachRow
        (br_if $done (i32.ge_u (local.get $out) (local.get $outEnd)))
        (local.set $a (v128.const f32x4 0 0 0 0))
        (local.set $b (v128.const f32x4 0 0 0 0))
        (local.set $c (v128.const f32x4 0 0 0 0))
        (local.set $d (v128.const f32x4 0 0 0 0))
        (local.set $q (local.get $query))
        (local.set $rowEnd (i32.add (local.get $row) (i32.shl (local.get $dims) (i32.const 2))))
        (local.set $blockEnd (i32.sub (local.get $rowEnd) (i32.const 64)))
        (block $blocksDone
          (loop $eachBlock
            (br_if $blocksDone (i32.gt_s (local.get $row) (local.get $blockEnd)))
            (local.set $a (f32x4.add (local.get $a) (f32x4.mul (v128.load (local.get $row)) (v128.load (local.get $q)))))
            (local.set $b (f32x4.add (local.get $b) (f32x4.mul (v128.load offset=16 (local.get $row)) (v128.load offset=16 (local.get $q)))))
            (local.set $c (f32x4.add (local.get $c) (f32x4.mul (v128.load offset=32 (local.get $row)) (v128.load offset=32 (local.get $q)))))
            (local.set $d (f32x4.add (local.get $d) (f32x4.mul (v128.load offset=48 (local.get $row)) (v128.load offset=48 (local.get $q)))))
            (local.set $row (i32.add (local.get $row) (i32.const 64)))
            (local.set $q (i32.add (local.get $q) (i32.const 64)))
            (br $eachBlock)))
        (block $tailDone
          (loop $eachQuad
            (br_if $tailDone (i32.ge_u (local.get $row) (local.get $rowEnd)))
            (local.set $a (f32x4.add (local.get $a) (f32x4.mul (v128.load (local.get $row)) (v128.load (local.get $q)))))
            (local.set $row (i32.add (local.get $row) (i32.const 16)))
            (local.set $q (i32.add (local.get $q) (i32.const 16)))
            (br $eachQuad)))
        (local.set $a (f32x4.add (f32x4.add (local.get $a) (local.get $b)) (f32x4.add (local.get $c) (local.get $d))))
        (f32.store (local.get $out)
          (f32.add
            (f32.add (f32x4.extract_lane 0 (local.get $a)) (f32x4.extract_lane 1 (local.get $a)))
            (f32.add (f32x4.extract_lane 2 (local.get $a)) (f32x4.extract_lane 3 (local.get $a)))))
        (local.set $out (i32.add (local.get $out) (i32.const 4)))
        (br $eachRow))))
)
