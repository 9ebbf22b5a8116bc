import Foundation

extension JSONEncoder {
  /// An encoder whose output is the same for the same value, keys sorted: saved files, request
  /// bodies and messages read the same from run to run.
  public static func sortedKeys() -> JSONEncoder {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    return encoder
  }
}
