import Clocks
import Composable
import Foundation
import Testing

@Suite struct PersistedTests {
  struct Todos: Codable, Equatable, Sendable {
    var todos: [String] = []
    var draft = ""
  }

  enum Action: Equatable, Sendable {
    case add(String)
    case typing(String)
  }

  static var base: Reduce<Todos, Action> { Reduce { state, action in
    switch action {
    case let .add(title): state.todos.append(title)
    case let .typing(text): state.draft = text
    }
    return .none
  } }

  func savedTodos(_ files: FileClient) async throws -> Todos {
    try JSONDecoder().decode(Todos.self, from: Data(try await files.read("todos.json")))
  }

  /// A save comes a second after the first change not yet saved (the schedule Lua features
  /// share, `StateSaver`), and writes the latest state: the burst is one write.
  @Test func savesOnlyCountedChangesASecondAfterTheFirstAndCoalesced() async throws {
    let clock = TestClock()
    let files = FileClient.inMemory()
    let store = TestStore(
      initialState: Todos(),
      reducer: Self.base.persisted(
        to: "todos.json", files: files, clock: clock, debounce: .seconds(1),
        ignoringDuplicates: { $0.todos == $1.todos }))
    await store.send(.typing("m")) { $0.draft = "m" }  // not counted: nothing is saved
    await clock.advance(by: .seconds(2))
    #expect(try await files.list(".") == [])
    await store.send(.add("milk")) { $0.todos = ["milk"] }
    await clock.advance(by: .milliseconds(500))
    await store.send(.add("eggs")) { $0.todos = ["milk", "eggs"] }
    await clock.advance(by: .milliseconds(499))
    #expect(try await files.list(".") == [])  // a second after the first change is not yet
    await clock.advance(by: .milliseconds(1))
    await store.finish()
    #expect(try await savedTodos(files) == Todos(todos: ["milk", "eggs"], draft: "m"))
  }

  @Test func aNewStoreStartsFromTheSavedState() async throws {
    let files = FileClient.inMemory()
    try await files.write("todos.json", Array(#"{"draft":"","todos":["saved"]}"#.utf8))
    let loaded = await PersistedState.load(Todos.self, from: "todos.json", files: files)
    #expect(loaded.state(or: Todos()) == Todos(todos: ["saved"]))
    let store = TestStore(initialState: loaded.state(or: Todos()), reducer: Self.base)
    await store.send(.add("more")) { $0.todos = ["saved", "more"] }
  }

  @Test func nothingSavedIsMissing() async throws {
    let loaded = await PersistedState.load(Todos.self, from: "todos.json", files: .inMemory())
    guard case .missing = loaded else { Issue.record("expected missing, got \(loaded)"); return }
  }

  @Test func aCorruptFileIsReportedAndMovedAsideNotReplaced() async throws {
    let files = FileClient.inMemory(["todos.json": "{ not json"])
    let reports = Reports()
    let loaded = await PersistedState.load(
      Todos.self, from: "todos.json", files: files, now: Date(timeIntervalSince1970: 1000),
      report: { reports.add($0) })
    guard case let .corrupt(_, movedTo) = loaded else { Issue.record("expected corrupt"); return }
    #expect(movedTo == "todos.json.corrupt-1000")
    #expect(try await files.read("todos.json.corrupt-1000") == Array("{ not json".utf8))
    #expect(try await files.list(".") == ["todos.json.corrupt-1000"])
    #expect(reports.all.count == 1)
    #expect(reports.all.first?.hasPrefix(
      "The saved state at todos.json was not loaded, because it is not a saved Todos:") == true)
    #expect(reports.all.first?.hasSuffix(
      "It was moved to todos.json.corrupt-1000; the feature starts from its initial state.") == true)
    #expect(loaded.state(or: Todos(draft: "fresh")) == Todos(draft: "fresh"))
  }

  /// Two bad files within one second are both kept: the second is moved to a name of its own,
  /// never over the first one's copy.
  @Test func twoBadFilesInOneSecondAreBothKept() async throws {
    let files = FileClient.inMemory()
    for text in ["{ first", "{ second"] {
      try await files.write("todos.json", Array(text.utf8))
      _ = await PersistedState.load(
        Todos.self, from: "todos.json", files: files, now: Date(timeIntervalSince1970: 1000),
        report: { _ in })
    }
    #expect(try await files.list(".") == ["todos.json.corrupt-1000", "todos.json.corrupt-1000-2"])
    #expect(try await files.read("todos.json.corrupt-1000") == Array("{ first".utf8))
    #expect(try await files.read("todos.json.corrupt-1000-2") == Array("{ second".utf8))
  }

  final class Reports: @unchecked Sendable {
    private let lock = NSLock()
    private var messages: [String] = []
    func add(_ message: String) { lock.withLock { messages.append(message) } }
    var all: [String] { lock.withLock { messages } }
  }
}
