internal import ShelfReactive

extension PropertyProtocol {
    /// Binds a property that is only ever set on the main actor — a main-actor view model's
    /// state — to `handler`: the current value at once, then every change, synchronously and
    /// in order, until `lifetime` ends. A screen thus never shows a frame from before a state
    /// it was given, and a dialog closes before the next key is read.
    ///
    /// Calling it for a property set on another thread stops the program (the main-actor
    /// check fails), which is the point: that property needs `observeOnMainActor`.
    @MainActor
    @discardableResult
    func bind(during lifetime: Lifetime, _ handler: @escaping @MainActor @Sendable (Value) -> Void) -> Observation {
        observe(during: lifetime) { value in MainActor.assumeIsolated { handler(value) } }
    }
}
