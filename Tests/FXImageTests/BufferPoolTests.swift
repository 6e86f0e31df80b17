import Testing

@testable import FXImage

/// The pool's contract: reuse without page faults, zero where asked, bounded,
/// and a failed allocation thrown, not trapped. Each test has its own pool, so
/// tests running in parallel cannot take each other's blocks.
@Suite struct BufferPoolTests {
  @Test func aReleasedLargeBlockIsReusedForTheNextRequestOfItsSize() throws {
    let pool = BufferPool()
    let a = try pool.allocate(byteCount: 5 << 20)
    #expect(a.isZero, "a freshly mapped block is zero")
    #expect(a.capacity == 6 << 20, "rounded up to whole 2 MiB pages")
    #expect(Int(bitPattern: a.pointer) % BufferPool.hugePageBytes == 0, "aligned for huge pages")
    a.pointer.storeBytes(of: 0xAB, as: UInt8.self)
    pool.release(a)
    #expect(pool.freeBytes == 6 << 20)
    let b = try pool.allocate(byteCount: (5 << 20) + 1)
    #expect(b.pointer == a.pointer, "the same mapping comes back")
    #expect(!b.isZero, "a reused block is not known to be zero")
    #expect(b.pointer.load(as: UInt8.self) == 0xAB, "and is not cleared")
    #expect(pool.freeBytes == 0)
    pool.release(b)
  }

  @Test func aMuchLargerFreeBlockIsNotHandedToASmallRequest() throws {
    let pool = BufferPool()
    let big = try pool.allocate(byteCount: 64 << 20)
    pool.release(big)
    let small = try pool.allocate(byteCount: 2 << 20)
    #expect(small.pointer != big.pointer, "64 MiB would waste 62 MiB")
    #expect(pool.freeBytes == 64 << 20)
    pool.release(small)
  }

  @Test func theCapacityBoundsWhatIsKept() throws {
    let pool = BufferPool()
    pool.capacityBytes = 4 << 20
    let blocks = try (0..<3).map { _ in try pool.allocate(byteCount: 2 << 20) }
    blocks.forEach(pool.release)
    #expect(pool.freeBytes == 4 << 20, "the least recently released block was unmapped")
    pool.capacityBytes = 0
    #expect(pool.freeBytes == 0)
  }

  @Test func smallBlocksAreAlignedAndNotPooled() throws {
    let pool = BufferPool()
    for bytes in [1, 100, 4096, 60_000] {
      let b = try pool.allocate(byteCount: bytes)
      #expect(Int(bitPattern: b.pointer) % 64 == 0)
      #expect(b.capacity >= bytes)
      pool.release(b)
    }
    #expect(pool.freeBytes == 0)
    let mid = try pool.allocate(byteCount: 100_000)
    #expect(mid.capacity == 102_400, "64 KiB… 1 MiB: whole 4 KiB pages")
    pool.release(mid)
    #expect(pool.freeBytes == 102_400)
  }

  @Test func anImpossibleAllocationThrowsInsteadOfTrapping() {
    let pool = BufferPool()
    #expect(throws: ImageBufferError.outOfMemory(bytes: 1 << 52)) { try pool.allocate(byteCount: 1 << 52) }
  }

  @Test func aZeroFilledBufferIsZeroEvenOnAReusedBlock() throws {
    // Through the shared pool: another test may take the dirty block first,
    // which only makes this weaker, never wrong.
    let side = 1024  // 4 MiB of RGBA8: a pooled, huge-page block
    do {
      let dirty = try ImageBuffer(width: side, height: side, format: .rgba8, zeroFilled: false)
      dirty.data.initializeMemory(as: UInt8.self, repeating: 0x5A, count: dirty.byteCount)
    }
    let clean = try ImageBuffer(width: side, height: side, format: .rgba8)
    let bytes = UnsafeRawBufferPointer(start: clean.data, count: clean.byteCount)
    #expect(bytes.allSatisfy { $0 == 0 })
  }
}
