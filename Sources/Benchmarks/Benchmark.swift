import Foundation

/// A figure printed as `name: value unit`, the format every benchmark of the project shares.
struct Figure {
  var name: String
  var value: Double
  var unit: String

  var line: String {
    let text = value >= 100 ? String(format: "%.0f", value) : String(format: "%.2f", value)
    return "\(name): \(text) \(unit)"
  }
}

/// Nanoseconds per iteration of `body`, the median of `rounds` timed rounds after one warm-up.
func nanosecondsPerIteration(
  iterations: Int, rounds: Int = 5, _ body: (Int) throws -> Void
) rethrows -> Double {
  try body(max(1, iterations / 10))  // warm-up: caches, allocator, JIT-free but still
  var samples: [Double] = []
  for _ in 0..<rounds {
    let start = DispatchTime.now().uptimeNanoseconds
    try body(iterations)
    let end = DispatchTime.now().uptimeNanoseconds
    samples.append(Double(end - start) / Double(iterations))
  }
  return samples.sorted()[samples.count / 2]
}

/// Nanoseconds per iteration of each body, timed in alternating rounds (a, b, a, b, ...) so
/// that a noisy neighbour slows both sides alike; the median round of each. Each round starts
/// with one untimed iteration, for both sides alike, so that neither pays for the heap the
/// other just left behind.
func interleavedNanoseconds(
  iterations: Int, rounds: Int = 9, _ first: (Int) throws -> Void, _ second: (Int) throws -> Void
) rethrows -> (first: Double, second: Double) {
  try first(1)
  try second(1)
  func time(_ body: (Int) throws -> Void) rethrows -> Double {
    try body(1)
    let start = DispatchTime.now().uptimeNanoseconds
    try body(iterations)
    return Double(DispatchTime.now().uptimeNanoseconds - start) / Double(iterations)
  }
  var samples: ([Double], [Double]) = ([], [])
  for _ in 0..<rounds {
    samples.0.append(try time(first))
    samples.1.append(try time(second))
  }
  return (samples.0.sorted()[rounds / 2], samples.1.sorted()[rounds / 2])
}

/// A group of figures that run together, so ratios compare numbers taken side by side.
struct BenchmarkGroup {
  var prefix: String
  var run: () throws -> [Figure]
}
