import CGtk

/// A Swift closure held by GLib for as long as its signal handler lives:
/// GLib holds the +1 reference and its destroy notify drops it.
final class HandlerBox<Body> {
    let body: Body
    init(_ body: Body) { self.body = body }
}

private let releaseBox: GClosureNotify = { data, _ in
    guard let data else { return }
    Unmanaged<AnyObject>.fromOpaque(data).release()
}

/// Connecting signals, one thunk per C signature. GTK emits on the main
/// loop's thread, so each handler runs `MainActor.assumeIsolated`.
@MainActor
enum Signals {
    typealias Handler = @MainActor () -> Void

    /// `(instance, data)`: `clicked`, a widget's `activate`, `value-changed`, `changed`, `map`,
    /// `close-request` (returns FALSE: the window closes). Not `notify::…` nor an
    /// action's `activate`: their handlers take an argument before the data.
    @discardableResult
    static func connect(_ instance: UnsafeMutableRawPointer, _ signal: String, _ body: @escaping Handler) -> UInt {
        let thunk: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Int32 = { _, data in
            guard let data else { return 0 }
            let box = Unmanaged<HandlerBox<Handler>>.fromOpaque(data).takeUnretainedValue()
            MainActor.assumeIsolated { box.body() }
            return 0
        }
        return connect(instance, signal, unsafeBitCast(thunk, to: GCallback.self), HandlerBox(body))
    }

    /// `(instance, data)` returning TRUE, so no other handler runs: a link
    /// button's `activate-link` (GTK's own would open the address).
    @discardableResult
    static func connectHandled(_ instance: UnsafeMutableRawPointer, _ signal: String, _ body: @escaping Handler) -> UInt {
        let thunk: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Int32 = { _, data in
            guard let data else { return 1 }
            let box = Unmanaged<HandlerBox<Handler>>.fromOpaque(data).takeUnretainedValue()
            MainActor.assumeIsolated { box.body() }
            return 1
        }
        return connect(instance, signal, unsafeBitCast(thunk, to: GCallback.self), HandlerBox(body))
    }

    typealias ItemHandler = @MainActor (UnsafeMutableRawPointer) -> Void

    /// `(instance, GObject *, data)`: a factory's `setup`, `bind`, `unbind`, `teardown`.
    @discardableResult
    static func connect(_ instance: UnsafeMutableRawPointer, _ signal: String, item body: @escaping ItemHandler) -> UInt {
        let thunk: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = { _, item, data in
            guard let item, let data else { return }
            let box = Unmanaged<HandlerBox<ItemHandler>>.fromOpaque(data).takeUnretainedValue()
            MainActor.assumeIsolated { box.body(item) }
        }
        return connect(instance, signal, unsafeBitCast(thunk, to: GCallback.self), HandlerBox(body))
    }

    /// `(instance, GParamSpec *, data)`: `notify::PROPERTY`, a property's change.
    @discardableResult
    static func connect(_ instance: UnsafeMutableRawPointer, notify property: String, _ body: @escaping Handler) -> UInt {
        connectSkippingArgument(instance, "notify::\(property)", body)
    }

    /// `(GSimpleAction *, GVariant *parameter, data)`: an action's `activate`
    /// (the parameter, NULL for an action that takes none, is not read).
    @discardableResult
    static func connect(action: UnsafeMutableRawPointer, _ body: @escaping Handler) -> UInt {
        connectSkippingArgument(action, "activate", body)
    }

    /// `(instance, anything, data)`, the middle argument not read.
    private static func connectSkippingArgument(_ instance: UnsafeMutableRawPointer, _ signal: String, _ body: @escaping Handler) -> UInt {
        let thunk: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = { _, _, data in
            guard let data else { return }
            let box = Unmanaged<HandlerBox<Handler>>.fromOpaque(data).takeUnretainedValue()
            MainActor.assumeIsolated { box.body() }
        }
        return connect(instance, signal, unsafeBitCast(thunk, to: GCallback.self), HandlerBox(body))
    }

    typealias IndexHandler = @MainActor (Int) -> Void

    /// `(instance, guint, data)`: a list view's `activate`.
    @discardableResult
    static func connect(_ instance: UnsafeMutableRawPointer, _ signal: String, index body: @escaping IndexHandler) -> UInt {
        let thunk: @convention(c) (UnsafeMutableRawPointer?, UInt32, UnsafeMutableRawPointer?) -> Void = { _, index, data in
            guard let data else { return }
            let box = Unmanaged<HandlerBox<IndexHandler>>.fromOpaque(data).takeUnretainedValue()
            MainActor.assumeIsolated { box.body(Int(index)) }
        }
        return connect(instance, signal, unsafeBitCast(thunk, to: GCallback.self), HandlerBox(body))
    }

    private static func connect<Body>(_ instance: UnsafeMutableRawPointer, _ signal: String, _ callback: GCallback,
                                      _ box: HandlerBox<Body>) -> UInt {
        let data = Unmanaged.passRetained(box as AnyObject).toOpaque()
        return UInt(pods_signal_connect(instance, signal, callback, data, releaseBox))
    }

    /// Runs `body` with the handler blocked: a change the program makes is not taken for the user's.
    static func blocking(_ instance: UnsafeMutableRawPointer, _ handler: UInt, _ body: () -> Void) {
        g_signal_handler_block(instance, gulong(handler))
        body()
        g_signal_handler_unblock(instance, gulong(handler))
    }
}
