import Glibc
import Synchronization

/// Memory for image buffers and kernel intermediates that costs nothing to get
/// a second time.
///
/// A fresh 72 MB output buffer faults in 18,000 pages of 4 KiB the first
/// time it is written — on a 17.9 MP image that doubled the time of a run.
/// The pool avoids both halves of that cost:
/// - large blocks (≥ ``largeBlockBytes``) are mapped with `mmap`, aligned to
///   2 MiB and advised `MADV_HUGEPAGE`, so where the kernel's transparent huge
///   pages are `always` or `madvise` a fresh block faults once per 2 MiB;
/// - a released block is kept (least recently used first out, at most
///   ``capacityBytes`` in all) and handed to the next request of a similar
///   size, already mapped, so a loop over frames or a batch of files of one
///   size takes no page faults after the first.
///
/// Blocks of 64 KiB up to 1 MiB are mapped and pooled too, in 4 KiB pages;
/// smaller ones come from `posix_memalign` (the C heap reuses those itself). Every block is aligned to 64
/// bytes. A failed allocation throws instead of trapping, so a batch can
/// report the file and go on. Thread-safe.
public final class BufferPool: Sendable {
  /// The pool ``ImageBuffer`` and the compiled kernels' intermediates use.
  public static let shared = BufferPool()

  /// Blocks of at least this many bytes (1 MiB) are aligned to huge pages.
  public static let largeBlockBytes = 1 << 20
  /// Blocks of at least this many bytes (64 KiB) are mapped and pooled.
  static let pooledBlockBytes = 64 << 10
  /// The huge-page size blocks are aligned and rounded to (2 MiB on x86-64).
  static let hugePageBytes = 2 << 20

  /// The most bytes kept in released blocks (default: an eighth of physical
  /// memory, at most 2 GiB); beyond it the least recently released are unmapped.
  /// Setting it to 0 unmaps every free block now and pools nothing later.
  public var capacityBytes: Int {
    get { state.withLock { $0.capacity } }
    set {
      state.withLock {
        $0.capacity = Swift.max(0, newValue)
        $0.evict()
      }
    }
  }

  /// Bytes now held in released blocks, ready for reuse.
  public var freeBytes: Int { state.withLock { $0.free.reduce(0) { $0 + $1.capacity } } }

  /// A block of memory: `pointer` to `capacity` bytes, of which the caller asked for `byteCount`.
  public struct Block: @unchecked Sendable {
    public let pointer: UnsafeMutableRawPointer
    /// Bytes mapped (a multiple of 2 MiB for a large block, of 4 KiB for a
    /// pooled one, `byteCount` for a small one).
    public let capacity: Int
    /// True when the memory is known to be zero (a block freshly mapped by the kernel).
    public let isZero: Bool
    let mapped: Bool
  }

  /// The free blocks and the cap, behind one lock.
  private struct State: ~Copyable {
    var free: [Block] = []  // least recently released first
    var capacity: Int

    /// The most recently released free block that fits `bytes` without wasting more than half of it.
    mutating func takeFree(atLeast bytes: Int) -> Block? {
      guard let i = free.lastIndex(where: { $0.capacity >= bytes && $0.capacity <= 2 * bytes }) else { return nil }
      return free.remove(at: i)
    }

    /// Unmaps the least recently released blocks beyond the capacity.
    mutating func evict() {
      var total = free.reduce(0) { $0 + $1.capacity }
      while total > capacity, !free.isEmpty {
        let b = free.removeFirst()
        total -= b.capacity
        BufferPool.unmap(b)
      }
    }
  }

  private let state: Mutex<State>

  init() {
    let physical = Int(sysconf(Int32(_SC_PHYS_PAGES))) * Int(sysconf(Int32(_SC_PAGESIZE)))
    state = Mutex(State(capacity: Swift.min(2 << 30, Swift.max(0, physical / 8))))
  }

  deinit {
    state.withLock { $0.free.forEach(Self.unmap) }
  }

  /// At least `byteCount` bytes (any content unless `isZero`), aligned to 64 bytes.
  /// - Throws: ``ImageBufferError/outOfMemory(bytes:)`` when the system has no memory for it.
  public func allocate(byteCount: Int) throws -> Block {
    let count = Swift.max(byteCount, 64)
    guard count >= Self.pooledBlockBytes else {
      var p: UnsafeMutableRawPointer?
      guard posix_memalign(&p, 64, count) == 0, let p else { throw ImageBufferError.outOfMemory(bytes: count) }
      return Block(pointer: p, capacity: count, isZero: false, mapped: false)
    }
    let unit = count >= Self.largeBlockBytes ? Self.hugePageBytes : 4096
    let rounded = (count + unit - 1) / unit * unit
    if let reused = state.withLock({ $0.takeFree(atLeast: rounded) }) { return reused }
    guard let p = Self.map(rounded) else {
      // Memory may be held in free blocks: give them back and try once more.
      state.withLock {
        $0.free.forEach(Self.unmap)
        $0.free.removeAll()
      }
      guard let p = Self.map(rounded) else { throw ImageBufferError.outOfMemory(bytes: count) }
      return Block(pointer: p, capacity: rounded, isZero: true, mapped: true)
    }
    return Block(pointer: p, capacity: rounded, isZero: true, mapped: true)
  }

  /// Gives `block` back: kept for reuse within ``capacityBytes``, else unmapped or freed.
  public func release(_ block: Block) {
    guard block.mapped else {
      Glibc.free(block.pointer)
      return
    }
    state.withLock {
      $0.free.append(Block(pointer: block.pointer, capacity: block.capacity, isZero: false, mapped: true))
      $0.evict()
    }
  }

  /// `bytes` of fresh zero memory; from 1 MiB on, aligned to 2 MiB and advised
  /// for huge pages (`bytes` is then a multiple of 2 MiB); nil when the system refuses.
  private static func map(_ bytes: Int) -> UnsafeMutableRawPointer? {
    guard bytes >= largeBlockBytes else {
      let p = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
      return p == MAP_FAILED ? nil : p
    }
    let span = bytes + hugePageBytes
    guard let raw = mmap(nil, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), raw != MAP_FAILED
    else { return nil }
    let start = Int(bitPattern: raw)
    let aligned = (start + hugePageBytes - 1) / hugePageBytes * hugePageBytes
    if aligned > start { munmap(raw, aligned - start) }
    let tail = start + span - (aligned + bytes)
    if tail > 0 { munmap(UnsafeMutableRawPointer(bitPattern: aligned + bytes), tail) }
    let p = UnsafeMutableRawPointer(bitPattern: aligned)!
    _ = madvise(p, bytes, Int32(MADV_HUGEPAGE))  // advice only: without THP the block still works
    return p
  }

  private static func unmap(_ b: Block) { munmap(b.pointer, b.capacity) }
}
