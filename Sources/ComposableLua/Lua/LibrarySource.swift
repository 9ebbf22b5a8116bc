/// `composable.effect`: effects as plain descriptions that the host turns into `Effect`s.
///
/// Each constructor returns a table with a `kind`; the Swift side checks every field and names
/// the one that is wrong, so a typo in a reducer reads as `effect.seconds: expected number, got
/// string`, not as a crash.
let effectLibrarySource = #"""
local effect = {}

effect.none = { kind = "none" }

function effect.send(action) return { kind = "send", action = action } end

function effect.merge(...) return { kind = "merge", effects = { ... } } end

function effect.concat(...) return { kind = "concat", effects = { ... } } end

function effect.after(seconds, action)
  return { kind = "after", seconds = seconds, action = action }
end

function effect.every(seconds, action)
  return { kind = "every", seconds = seconds, action = action }
end

function effect.cancellable(inner, id, options)
  return {
    kind = "cancellable", effect = inner, id = id,
    cancel_in_flight = options ~= nil and options.cancel_in_flight == true,
  }
end

function effect.cancel(id) return { kind = "cancel", id = id } end

function effect.debounce(inner, id, seconds)
  return { kind = "debounce", effect = inner, id = id, seconds = seconds }
end

function effect.throttle(inner, id, seconds, options)
  return {
    kind = "throttle", effect = inner, id = id, seconds = seconds,
    latest = options == nil or options.latest ~= false,
  }
end

function effect.http(request)
  return { kind = "http", request = request }
end

return effect
"""#

/// `composable`: the feature-side library. Composition helpers come with a later step.
let composableLibrarySource = #"""
local composable = {}
composable.effect = require("composable.effect")
return composable
"""#
