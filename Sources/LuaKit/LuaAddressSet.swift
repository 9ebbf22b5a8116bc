#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A set of addresses (the Lua tables a walk has met, by `lua_topointer`) kept in memory mapped
/// for it alone, unmapped as it grows and when it goes: a walk's bookkeeping leaves nothing
/// resident behind.
///
/// A walk over a large state meets every table: 100,000 todos make a set of 2 MB, grown through
/// 1 MB, 512 KB and so on. A `Set` takes these from malloc, which kept them resident after the
/// walk (glibc raises its mmap threshold as a state's large blocks are freed, and the blocks
/// freed at the top of a thread's heap stay below its trim threshold): `composable run` of
/// 100,000 todos held 4.3 MB more once it had described its state.
final class LuaAddressSet {
  private var buckets: UnsafeMutablePointer<UInt>
  private var mapped: Bool
  /// log2 of the number of buckets.
  private var scale: Int
  private(set) var count = 0

  private var bucketCount: Int { 1 << scale }

  init() {
    scale = 9  // 4 KiB: a page
    (buckets, mapped) = Self.allocate(1 << scale)
  }

  deinit { Self.free(buckets, count: bucketCount, mapped: mapped) }

  /// Inserts `address`; whether it was not there yet.
  func insert(_ address: UnsafeRawPointer) -> Bool {
    if (count + 1) * 2 > bucketCount { grow() }
    let key = UInt(bitPattern: address)
    var index = bucket(of: key)
    while true {
      let found = buckets[index]
      if found == key { return false }
      if found == 0 {
        buckets[index] = key
        count += 1
        return true
      }
      index = (index + 1) & (bucketCount - 1)
    }
  }

  func contains(_ address: UnsafeRawPointer) -> Bool {
    let key = UInt(bitPattern: address)
    var index = bucket(of: key)
    while true {
      let found = buckets[index]
      if found == key { return true }
      if found == 0 { return false }
      index = (index + 1) & (bucketCount - 1)
    }
  }

  /// Fibonacci hashing: the top `scale` bits of the address times 2^64 / φ.
  private func bucket(of key: UInt) -> Int {
    Int(truncatingIfNeeded: (UInt64(key) &* 0x9E37_79B9_7F4A_7C15) >> UInt64(64 - scale))
  }

  private func grow() {
    let old = buckets, oldCount = bucketCount, oldMapped = mapped
    scale += 1
    (buckets, mapped) = Self.allocate(bucketCount)
    for position in 0..<oldCount where old[position] != 0 {
      var index = bucket(of: old[position])
      while buckets[index] != 0 { index = (index + 1) & (bucketCount - 1) }
      buckets[index] = old[position]
    }
    Self.free(old, count: oldCount, mapped: oldMapped)
  }

  /// `count` zeroed buckets: mapped, or from malloc if the system maps nothing.
  private static func allocate(_ count: Int) -> (UnsafeMutablePointer<UInt>, mapped: Bool) {
    let bytes = count * MemoryLayout<UInt>.stride
    let memory = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
    if let memory, memory != UnsafeMutableRawPointer(bitPattern: -1) {
      return (memory.bindMemory(to: UInt.self, capacity: count), true)  // zeroed by the system
    }
    let buckets = UnsafeMutablePointer<UInt>.allocate(capacity: count)
    buckets.initialize(repeating: 0, count: count)
    return (buckets, false)
  }

  private static func free(_ buckets: UnsafeMutablePointer<UInt>, count: Int, mapped: Bool) {
    if mapped {
      munmap(buckets, count * MemoryLayout<UInt>.stride)
    } else {
      buckets.deallocate()
    }
  }
}
