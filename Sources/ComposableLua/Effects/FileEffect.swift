import Composable
import Foundation
import IssueReporting
import LuaKit

/// `effect.file.read{ path = ..., response = "type" }` and `write`, `append`, `list`, `remove`,
/// `exists` (LuaFileOperation): a file operation under the host's data directory, whose result
/// arrives as the action named `response`. Inside `effect.run`, `file.read(path)` and friends
/// do the same and return the result.
enum FileEffect: LuaEffectRequestKind {
  static let name = "file"
  static let fields = ["operation", "request", "wrappers"]

  /// What it is in Lua: its constructor in composable.effect, its LuaLS annotation and its
  /// row in docs/lua-api.md (scripts/generate-effect-kinds copies each there).
  static let lua = LuaEffectKindSource(
    constructor: """
      -- effect.file.read{ path = "notes.txt", response = "loaded" } and write, append, list, remove,
      -- exists: the result arrives as { type = response, ok = true, contents | entries | exists } or
      -- { type = response, ok = false, error = "..." }. `response` may be left out of write, append
      -- and remove when nothing needs to know.
      local file_operations = { "read", "write", "append", "list", "remove", "exists" }
      effect.file = {}
      for _, operation in ipairs(file_operations) do
        effect.file[operation] = function(request)
          if type(request) ~= "table" then
            error("effect.file." .. operation .. ": expected a request table, got " .. type(request), 2)
          end
          return { kind = "file", operation = operation, request = request }
        end
      end

      -- file.read(path) and friends inside effect.run: each returns the result table.
      effect.file_client = {}
      for _, operation in ipairs(file_operations) do
        effect.file_client[operation] = function(path, contents)
          local request = { path = path, contents = contents }
          return yield({ op = "file", operation = operation, request = request })
        end
      end
      """,
    annotation: """
      ---@class FileRequest
      ---@field path string under the host's data directory (or the test's files)
      ---@field contents? string write, append: the bytes to write
      ---@field data? any write, append with `json = true`: the value, written as JSON
      ---@field json? boolean read: answer with `data` decoded too; write, append: write `data`
      ---@field response? string the type of the action the result arrives as (needed by read,
      ---list and exists)

      effect.file = {}
      ---@param request FileRequest
      ---@return Effect
      function effect.file.read(request) end
      ---@param request FileRequest
      ---@return Effect
      function effect.file.write(request) end
      ---@param request FileRequest
      ---@return Effect
      function effect.file.append(request) end
      ---@param request FileRequest
      ---@return Effect
      function effect.file.list(request) end
      ---@param request FileRequest
      ---@return Effect
      function effect.file.remove(request) end
      ---@param request FileRequest
      ---@return Effect
      function effect.file.exists(request) end
      """,
    row:
      "| `effect.file.read`, `write`, `append`, `list`, `remove`, `exists` `(request)` | A file operation under the host's data directory; the result arrives as the action named `request.response`. |"
  )
  static let hostCall = "file"
  static let testField = "files"

  static func effect(
    from table: LuaTable, at path: String, in interpreter: LuaEffectInterpreter
  ) throws(LuaFeatureError) -> LuaEffect {
    let operation = table["operation"].stringValue ?? ""
    guard let known = LuaFileOperation(rawValue: operation) else {
      throw interpreter.fail(
        path + ".operation", "expected \(LuaFileOperation.listed), got \(table["operation"])")
    }
    var (request, filePath) = try self.request(
      table["request"], operation: known, at: path + ".request", in: interpreter)
    // Writes may go unanswered; what a read, a list or an exists finds needs an action to go to.
    let response =
      known.answersWithData
      ? try interpreter.responseType(request, at: path) : request["response"].stringValue
    if known.writesContents, request["json"] == true {
      // `data` written as JSON, encoded now, while the VM is at hand.
      do throws(LuaError) {
        request["contents"] = .string(LuaString(try interpreter.vm.jsonEncode(request["data"])))
      } catch {
        throw interpreter.fail(path + ".request.data", error.message)
      }
    }
    let wrappers = try interpreter.wrappers(table["wrappers"], at: path + ".wrappers")
    let runner = interpreter.runner
    let (checked, target) = (request, filePath)
    let run = LuaEffect.run { send in
      await runner.fileOperation(
        known, at: target, checked, responseType: response, wrappers: wrappers, send: send)
    }
    return try interpreter.held(
      run.named("file." + operation), data: table["request"], at: path)
  }

  /// The request of `effect.file.*`, every field checked, whether or not an action hears back:
  /// a misspelt field is an error here, not a write that silently does something else.
  ///
  /// The path is made a `DataPath` here, so a path that could not be used (a NUL, a control
  /// byte, `..`, absolute...) fails the action that returned it, naming the field.
  private static func request(
    _ request: LuaValue, operation: LuaFileOperation, at path: String,
    in interpreter: LuaEffectInterpreter
  ) throws(LuaFeatureError) -> (request: LuaValue, path: DataPath) {
    let effect = "effect.file.\(operation.rawValue)"
    try interpreter.checkFields(
      of: request, allowed: operation.requestFields, effect: effect, at: path)
    guard case let .string(pathBytes) = request["path"] else {
      throw interpreter.fail(path + ".path", "expected a string, got \(request["path"].typeName)")
    }
    let filePath: DataPath
    do { filePath = try DataPath(validating: pathBytes.bytes) } catch {
      throw interpreter.fail(path + ".path", "\(effect): \(error)")
    }
    if request["json"] != .nil, request["json"].boolValue == nil {
      throw interpreter.fail(
        path + ".json", "expected a boolean, got \(request["json"].typeName)")
    }
    if operation.writesContents {
      if request["json"] == true {
        guard request["contents"] == .nil else {
          throw interpreter.fail(
            path + ".contents", "with json = true, give the value as data, not contents")
        }
      } else {
        guard request["data"] == .nil else {
          throw interpreter.fail(
            path + ".data", "data is written with json = true; text goes in contents")
        }
        guard case .string = request["contents"] else {
          throw interpreter.fail(
            path + ".contents", "expected a string, got \(request["contents"].typeName)")
        }
      }
    }
    return (request, filePath)
  }

  static func answer(_ yielded: LuaValue, runner: LuaEffectRunner) async -> LuaValue? {
    await runner.file(yielded["operation"].stringValue ?? "", yielded["request"])
  }

  // MARK: Faked in a Lua test

  /// `files = "fixtures/todos"` (a copy, so the fixture is never changed; the folder must be
  /// under the test's folder), `files = { ["todos.saved.lua"] = "..." }`, or a function.
  static func fake(
    _ value: LuaValue, in session: LuaTestSession, clock: ManualClock,
    into dependencies: inout DependencyValues
  ) throws {
    dependencies.files = try files(value, in: session)
  }

  private static func files(_ value: LuaValue, in session: LuaTestSession) throws -> FileClient {
    switch value {
    case .nil:
      return FileClient.failing(FileClient.notProvidedInTest) { operation, path in
        reportIssue(
          """
          A test used "files" without providing it: \(operation) \(path)

          To fix, give the TestStore files: TestStore.new{ ..., files = "fixtures/dir" } \
          (a copy of a directory beside the test) or files = { ["name.txt"] = "contents" }
          """)
      }
    case let .string(path):
      let fixture: DataPath
      do { fixture = try DataPath(validating: path.bytes) } catch {
        throw LuaTestError("TestStore.new: files: \(error)")
      }
      return .live(root: try LuaTestFixture.copy(fixture, under: session.directory))
    case let .table(table):
      var files: [DataPath: [UInt8]] = [:]
      for (key, value) in table.entries {
        guard case let .string(name) = key, case let .string(contents) = value else {
          throw LuaTestError(
            "TestStore.new: files must map names to contents (strings), got "
              + "\(LuaValue.describeForMessage(key)) = \(value.typeName)")
        }
        let path: DataPath
        do { path = try DataPath(validating: name.bytes) } catch {
          throw LuaTestError("TestStore.new: files[\(LuaValue.describeForMessage(key))]: \(error)")
        }
        // What no disk could hold: the folder itself, one file by two names (`c//d`, `c/d`: one
        // of them was taken, which one changing from run to run), a file under a file.
        guard !path.isRoot else {
          throw LuaTestError(
            "TestStore.new: files[\(key)]: it names the folder itself; give a file's name")
        }
        guard files[path] == nil else {
          throw LuaTestError(
            "TestStore.new: files names \(path) twice (\(key) is one of the names); give it once")
        }
        files[path] = contents.bytes
      }
      for path in files.keys {
        var prefix: [String] = []
        for component in path.components.dropLast() {
          prefix.append(component)
          if let file = try? DataPath(validating: prefix.joined(separator: "/")), files[file] != nil
          {
            throw LuaTestError(
              "TestStore.new: files holds \(file) and \(path) under it: a file is no folder")
          }
        }
      }
      return .inMemory(bytes: files)
    case let .function(answer):
      // files = function(request) ... end, request = { operation, path, contents }: returns the
      // contents for read, names for list, a boolean for exists; raises to fail the operation.
      let call: @Sendable (String, DataPath, [UInt8]?) async throws -> LuaValue = {
        [queue = session.queue] operation, path, contents in
        var request = LuaTable()
        request["operation"] = .string(LuaString(operation))
        request["path"] = .string(LuaString(path.description))
        if let contents { request["contents"] = .string(LuaString(bytes: contents)) }
        do {
          return try queue.access { vm, _ in try vm.call(answer, .table(request)).first ?? .nil }
        } catch let error as LuaError {
          throw FileClientError(error.message)
        }
      }
      // An answer of another shape fails the operation, saying what is taken: `{ ok = true,
      // contents = ... }` (what the feature's own read answers with) read as "no file", and a
      // test written that way quietly tested an empty start.
      @Sendable func wrongAnswer(
        _ operation: String, _ path: DataPath, _ answer: LuaValue, _ taken: String
      )
        -> FileClientError
      {
        FileClientError(
          "files(request) answered the \(operation) of \(path) with "
            + "\(LuaValue.describeForMessage(answer)): it answers "
            + "a \(operation) with \(taken), or raises to fail it")
      }
      return FileClient(
        read: { path in
          switch try await call("read", path, nil) {
          case let .string(text): return text.bytes
          case .nil: throw FileClientError.notFound(path)
          case let other:
            throw wrongAnswer("read", path, other, "the contents (a string), nil for no file")
          }
        },
        write: { path, contents in _ = try await call("write", path, contents) },
        append: { path, contents in _ = try await call("append", path, contents) },
        list: { path in
          let answer = try await call("list", path, nil)
          if answer == .nil { return [] }
          guard case let .table(names) = answer,
            names.sequence.count == names.count,
            names.sequence.allSatisfy({ $0.stringValue != nil })
          else { throw wrongAnswer("list", path, answer, "a list of names (strings)") }
          return names.sequence.compactMap(\.stringValue)
        },
        remove: { path in _ = try await call("remove", path, nil) },
        exists: { path in
          let answer = try await call("exists", path, nil)
          if answer == .nil { return false }
          guard case let .boolean(exists) = answer else {
            throw wrongAnswer("exists", path, answer, "true or false (nil: false)")
          }
          return exists
        })
    default:
      throw LuaTestError(
        "TestStore.new: files must be a fixture directory, a table or a function, got \(value.typeName)"
      )
    }
  }

  // MARK: Recorded in a session

  /// Each operation as `{ operation, path }`, its answer as `contents` (read; nil when there is
  /// no such file), `names` (list), `exists`; nil for a write.
  static func recording(
    _ dependencies: DependencyValues, into recorder: LuaExchangeRecorder
  ) -> DependencyValues {
    var recording = dependencies
    let files = dependencies.files
    @Sendable func note<T>(
      _ operation: String, _ path: DataPath, answer: (T) -> LuaValue,
      _ body: () async throws -> T
    ) async throws -> T {
      let start = recorder.begin()
      let request: LuaValue = [
        "operation": .string(LuaString(operation)), "path": .string(LuaString(path.description)),
      ]
      do {
        let result = try await body()
        // An answer that comes once the effect is cancelled is not taken (`perform` drops it).
        let cancelled = Task.isCancelled
        recorder.note(
          name, request, cancelled ? .nil : answer(result), nil, cancelled, start, recorder.now())
        return result
      } catch {
        // A read of a file that is not there is an answer (nil), not a failure; a list of a
        // folder or a remove of a file that is not there fails, and a test must fail it too.
        let missing = (error as? FileClientError)?.code == .notFound && operation == "read"
        let cancelled = Task.isCancelled || error is CancellationError
        recorder.note(
          name, request, .nil, missing || cancelled ? nil : "\(error)", cancelled, start,
          recorder.now())
        throw error
      }
    }
    var recorded = FileClient(
      read: { path in
        try await note("read", path, answer: { .string(LuaString(bytes: $0)) }) {
          try await files.read(path)
        }
      },
      write: { path, contents in
        try await note("write", path, answer: { .nil }) { try await files.write(path, contents) }
      },
      append: { path, contents in
        try await note("append", path, answer: { .nil }) {
          try await files.append(path, contents)
        }
      },
      list: { path in
        try await note(
          "list", path,
          answer: { names in .table(LuaTable(array: names.map { .string(LuaString($0)) })) }
        ) { try await files.list(path) }
      },
      remove: { path in
        try await note("remove", path, answer: { .nil }) { try await files.remove(path) }
      },
      exists: { path in
        try await note("exists", path, answer: { .boolean($0) }) { try await files.exists(path) }
      })
    recorded.locate = files.locate
    recording.files = recorded
    return recording
  }
}

// MARK: Performed

extension LuaEffectRunner {
  /// `effect.file.*`: performs the operation (its request checked by the interpreter, its
  /// path made a `DataPath` there) and sends the result as the `response` action, if there is
  /// one.
  func fileOperation(
    _ operation: LuaFileOperation, at path: DataPath, _ request: LuaValue, responseType: String?,
    wrappers: [LuaReference], send: Send<LuaValue>
  ) async {
    guard
      var result = await LuaExchangeRecorder.$origin.withValue(
        origin,
        operation: {
          await file(operation, at: path, request)
        })
    else { return }
    guard let responseType else {
      // Nothing hears back: a failure is reported, as a reducer's error would be.
      if result["ok"] == false {
        fail(
          .runtime(
            message: "effect.file.\(operation.rawValue) of \(request["path"]) failed: "
              + "\(result["error"])",
            traceback: ""))
      }
      return
    }
    result["type"] = .string(LuaString(responseType))
    do { await send(try feature.wrap(result, with: wrappers)) } catch {
      fail(error)
    }
  }

  /// `file.read(path)` and friends inside `effect.run`: the request as the coroutine gave it,
  /// every field checked here. `{ ok = true, ... }` or `{ ok = false, error }`; nil when
  /// cancelled.
  func file(_ operation: String, _ request: LuaValue) async -> LuaValue? {
    func failed(_ message: String) -> LuaValue {
      ["ok": false, "error": .string(LuaString(message))]
    }
    guard let known = LuaFileOperation(rawValue: operation) else {
      return failed(
        "\(LuaValue(operation)) is no file operation: expected \(LuaFileOperation.listed)")
    }
    let field = "file.\(operation): path"
    guard case let .string(bytes) = request["path"] else {
      return failed("\(field): expected a string, got \(request["path"].typeName)")
    }
    do {
      let path = try DataPath(validating: bytes.bytes)
      return await LuaExchangeRecorder.$origin.withValue(origin) {
        await file(known, at: path, request)
      }
    } catch {
      return failed("\(field): \(error)")
    }
  }

  /// Performs `operation` on `path`: `{ ok = true, contents | entries | exists }` or
  /// `{ ok = false, error }`; nil when cancelled.
  private func file(
    _ operation: LuaFileOperation, at path: DataPath, _ request: LuaValue
  ) async -> LuaValue? {
    func contents() throws -> [UInt8] {
      guard case let .string(text) = request["contents"] else {
        throw FileClientError(
          "file.\(operation.rawValue): contents: expected a string, got "
            + request["contents"].typeName)
      }
      return text.bytes
    }
    do {
      if operation.changesFiles { try refuseHostsFile(path, operation) }
      var result: LuaValue = ["ok": true]
      switch operation {
      case .read:
        let bytes = try await files.read(path)
        result["contents"] = .string(LuaString(bytes: bytes))
        if request["json"] == true { result["data"] = try feature.decodeJSON(bytes) }
      case .write: try await files.write(path, try contents())
      case .append: try await files.append(path, try contents())
      case .list:
        let entries = try await files.list(path).map { LuaValue.string(LuaString($0)) }
        result["entries"] = .table(LuaTable(array: entries))
      case .remove: try await files.remove(path)
      case .exists: result["exists"] = .boolean(try await files.exists(path))
      }
      if Task.isCancelled { return nil }
      return result
    } catch {
      if Task.isCancelled || error is CancellationError { return nil }
      // A JSON error is the decoder's message alone: there is no Lua code to trace back.
      let message = (error as? LuaError)?.message ?? "\(error)"
      return ["ok": false, "error": .string(LuaString(message))]
    }
  }

  /// Throws for a write, an append or a removal of the file the feature's state is saved in
  /// (`persist.path`, or the file its saves went beside it to), which the next start would
  /// find replaced, or gone. The state is saved by changing it; its file is the host's to
  /// write. (A host's own files are refused by its file client: `Run.files`.)
  ///
  /// The file is refused by any path that leads there: its own, or one through a symlink in
  /// the data directory (`FileClient.locate` tells where each path ends).
  private func refuseHostsFile(_ path: DataPath, _ operation: LuaFileOperation) throws {
    let saved = [feature.persistence?.path, feature.stateSavedAside].compactMap { $0 }
    guard !saved.isEmpty else { return }
    var reaches = saved.contains(path)
    if !reaches, let locate = files.locate,
      let place = locate(path, operation != .remove)  // a removal takes a link itself
    {
      reaches = saved.contains { locate($0, true) == place }
    }
    guard reaches else { return }
    let change =
      switch operation {
      case .append: "an append"
      case .remove: "a removal"
      default: "a \(operation.rawValue)"
      }
    throw FileClientError(
      "\(path): the feature's state is saved there (persist.path), and only the host writes it; "
        + "\(change) would be lost at the next save, or lose the state. To fix, change the state "
        + "and let it save, or \(operation.rawValue) another file")
  }
}
