import CLua
import LuaSupport

/// Swift functions that Lua code can call.
///
/// A host function receives snapshots of its arguments and returns its results. It never
/// raises a Lua error itself: a thrown Swift error becomes a status code and a message, and
/// the C trampoline raises it (`file:line: message`, at the Lua caller), so Lua's longjmp
/// never crosses a Swift frame. While it runs, the memory cap is lifted for the same reason.
extension LuaVM {
  /// The Swift body of a host function: snapshots of its arguments in, its results out. What it
  /// throws is raised in Lua, at the caller.
  public typealias HostFunction = ([LuaValue]) throws -> [LuaValue]

  /// A Lua function that calls `body`. `name` names it in error messages.
  public func function(named name: String, _ body: @escaping HostFunction) -> LuaReference {
    let box = HostFunctionBox(name: name, body: body)
    lk_push_host_function(
      L, hostFunctionCallback, hostFunctionRelease, Unmanaged.passRetained(box).toOpaque())
    defer { lk_pop(L, 1) }
    return makeReference(at: -1, L)
  }
}

/// What a host function closes over; released by the `__gc` of its Lua closure, or when the
/// state closes.
final class HostFunctionBox {
  let name: String
  let body: LuaVM.HostFunction

  init(name: String, body: @escaping LuaVM.HostFunction) {
    self.name = name
    self.body = body
  }
}

/// Runs on the calling Lua thread (a coroutine's, perhaps): reads the arguments from that
/// thread's stack, runs the Swift body, pushes the results. Returns -1 after pushing a message
/// when the body throws; the trampoline raises it.
private let hostFunctionCallback: lk_host_callback = { thread, context in
  guard let thread, let context, let owner = lk_owner(thread) else { return 0 }
  let box = Unmanaged<HostFunctionBox>.fromOpaque(context).takeUnretainedValue()
  let vm = Unmanaged<LuaVM>.fromOpaque(owner).takeUnretainedValue()
  let stack = LuaStack(thread)
  do {
    var arguments: [LuaValue] = []
    let count = stack.top
    arguments.reserveCapacity(Int(count))
    for index in stride(from: Int32(1), through: count, by: 1) {
      do throws(LuaError) { arguments.append(try stack.value(at: index, in: vm)) } catch {
        throw error.rooted(at: "bad argument #\(index) to '\(box.name)'")
      }
    }
    let results = try box.body(arguments)
    guard stack.reserve(Int32(results.count) + 1) else {
      throw LuaError.runtime(message: "too many results from '\(box.name)'", traceback: "")
    }
    lua_settop(thread, 0)
    for result in results { try stack.push(result, in: vm) }
    return Int32(results.count)
  } catch let error as LuaError {
    stack.push(error.message)
    return -1
  } catch {
    stack.push("\(box.name): \(error)")
    return -1
  }
}

private let hostFunctionRelease: lk_host_release = { context in
  guard let context else { return }
  Unmanaged<HostFunctionBox>.fromOpaque(context).release()
}
