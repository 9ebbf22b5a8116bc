import LuaSupport

/// A Lua data file: `return <a table literal>`, the way a Lua program keeps data it reads back
/// with `load`, and readable by the person who opens it.
///
/// It holds every value plain Lua data can hold, exactly: strings as bytes (text as it is, any
/// other byte as a `\ddd` escape), integers apart from floats (`1` and `1.0`), `-0.0`, `0/0`
/// and `-(0/0)` for NaN (by its sign) and `1/0` for infinity, keys of every kind (`[1]`, `[2.5]`, `[true]`,
/// `["not a name"]`), and tables reached at more than one place, which are named once and
/// referred to after, so that they are read back as one table:
///
/// ```lua
/// local shared = {}
/// shared[1] = { "leaf" }
/// shared[2] = { shared[1], shared[1] }
/// return { a = shared[2], b = shared[2] }
/// ```
///
/// What plain data cannot hold (a function, a coroutine, a userdata, a key that is a table or
/// NaN) is refused while writing, with the field named. `lua5.4` loads every file this writes
/// to the same value.
///
/// Reading runs nothing: `read` parses the literals above and nothing else (see
/// `LuaDataFileReader`), so a file can hold only what it could have been written with.
public enum LuaDataFile {
  /// The largest data file `read` takes, in bytes: 32 MiB (a saved state of 300,000 todos).
  public static let maximumSize = 32 << 20

  /// The most fields (of every table, counted together) a data file `read` takes: 1,000,000,
  /// a saved state of 250,000 todos of three fields. A file of `{}, {}, ...` is millions of
  /// tables in 32 MiB: gigabytes once in Swift and in Lua, and half a minute to restore.
  public static let maximumFields = 1_000_000

  /// `value` as the text of a data file, starting with `header` (one comment line per line
  /// of it) when there is one. `root` names the value in errors (`state.todos[3].done`).
  ///
  /// `maximumDepth` is how deep its tables may nest: a file that wraps values in tables of its
  /// own (a session: its actions in a list, each in a record) allows for them, so that each value
  /// may be as deep as any.
  ///
  /// A value of more than `maximumFields` fields, or whose text is more than `maximumBytes`
  /// bytes, is refused, as `read` would refuse its file.
  ///
  /// json.null (JSON's null, as decoded) is refused, as plain data cannot hold it; with
  /// `jsonNull`, it is written `json.null`, which `read` with `jsonNull` reads
  /// back (a file for this runtime's own reading, such as a session, whose actions hold
  /// HTTP responses; `lua5.4` loads it only where `json` is defined).
  public static func text(
    of value: LuaValue, root: String = "value", header: String? = nil,
    maximumDepth: Int = LuaValue.maximumDepth, maximumFields: Int = LuaDataFile.maximumFields,
    maximumBytes: Int = LuaDataFile.maximumSize, jsonNull: Bool = false
  ) throws(LuaError) -> String {
    var output = ""
    if let header {
      for line in header.split(separator: "\n", omittingEmptySubsequences: false) {
        output += "-- \(LuaComment.line(line))\n"
      }
    }
    var writer = LuaDataFileWriter(
      value: value, maximumDepth: maximumDepth, nullSource: jsonNull ? "json.null" : nil)
    do throws(LuaError) { try writer.check(value) } catch {
      throw error.rooted(at: root)
    }
    let statements = writer.statements(of: value)
    guard writer.fieldsWritten <= maximumFields else {
      throw LuaError.conversion(
        path: "",
        message: "\(writer.fieldsWritten) fields (of every table, counted together) are more "
          + "than the \(maximumFields) a data file holds"
      ).rooted(at: root)
    }
    output += statements
    // As `read` would refuse it: bytes not UTF-8 are written as escapes, four bytes for one.
    guard output.utf8.count <= maximumBytes else {
      throw LuaError.conversion(
        path: "",
        message: "written, it is \(output.utf8.count) bytes, more than the \(maximumBytes) a "
          + "data file holds"
      ).rooted(at: root)
    }
    return output
  }

  /// `value` as one Lua expression that reads back as exactly it, for Lua source written around
  /// it (a test's expected state): a literal, or, where tables are shared, a call of a function
  /// that names them, `(function() local shared = {} ... return ... end)()`. Its lines after the
  /// first are indented by `indent` spaces. With `null`, json.null is written as that source
  /// (`json.null`, where the code around has `json`); without, it is refused, as in a file.
  public static func expression(
    of value: LuaValue, root: String = "value", indent: Int = 0, null: String? = nil
  ) throws(LuaError) -> String {
    var writer = LuaDataFileWriter(
      value: value, maximumDepth: LuaValue.maximumDepth, nullSource: null)
    do throws(LuaError) { try writer.check(value) } catch {
      throw error.rooted(at: root)
    }
    var text = writer.expression(of: value)
    if text.hasSuffix("\n") { text.removeLast() }
    guard indent > 0 else { return text }
    let padding = String(repeating: " ", count: indent)
    return text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().map {
      $0.offset == 0 ? String($0.element) : padding + $0.element
    }.joined(separator: "\n")
  }

  /// Reads a data file: `bytes` parsed as `text(of:)` writes them (or as a person writes them by
  /// hand), with nothing run. `chunkName` names the file in errors, with the line and column
  /// (`todos.saved.lua:3:12: ...`). Refuses more than `maximumSize` bytes or `maximumFields`
  /// fields, tables nested more than `maximumDepth` levels deep, and anything that is not a
  /// literal. With `jsonNull`, the words `json.null` are read as json.null (see `text(of:)`).
  public static func read(
    _ bytes: [UInt8], chunkName: String, maximumDepth: Int = LuaValue.maximumDepth,
    maximumFields: Int = LuaDataFile.maximumFields, jsonNull: Bool = false
  ) throws(LuaError) -> LuaValue {
    guard bytes.count <= maximumSize else {
      throw .syntax(
        message: "\(chunkName): more than \(maximumSize) bytes, the most a data file may hold",
        incompleteInput: false)
    }
    var reader = LuaDataFileReader(
      bytes: bytes, chunkName: chunkName, maximumDepth: maximumDepth,
      maximumFields: maximumFields, jsonNull: jsonNull)
    return try reader.file()
  }

  /// A number as Lua source that reads back as exactly this number, integer or float.
  static func literal(integer: Int) -> String {
    // `-9223372036854775808` reads as minus a number too big for an integer: a float.
    integer == .min ? "(-9223372036854775807 - 1)" : String(integer)
  }

  /// What `0/0` is in Lua on this machine: a NaN of the sign its division gives.
  static let zeroOverZero = lk_zero_over_zero()

  /// `float` as Lua source. A NaN is `0/0`, and the NaN of the other sign than Lua's `0/0` here
  /// `-(0/0)` (`lua5.4` prints them `nan` and `-nan` on x86, and `==` of `LuaValue` tells them
  /// apart), so that it loads back as it was. (`-0/0` would be `(-0)/0`: `0/0`'s NaN.)
  static func literal(float: Double) -> String {
    if float.isNaN { return float.sign == zeroOverZero.sign ? "0/0" : "-(0/0)" }
    if float.isInfinite { return float > 0 ? "1/0" : "-1/0" }
    // Swift writes the shortest digits that read back as the same double, always with a `.`
    // or an exponent (`1.0`, `-0.0`, `1e+16`), so Lua reads a float, never an integer.
    return "\(float)"
  }
}
