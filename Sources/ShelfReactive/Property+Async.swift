extension PropertyProtocol {
    /// The current value, then every change, as an `AsyncSequence` for `for await`.
    ///
    /// The sequence keeps only the newest value the consumer has not taken yet: a slow
    /// consumer skips intermediate values but always ends up at the latest. It finishes when
    /// the property goes away; breaking out of the loop (or cancelling the task) ends the
    /// observation.
    public var values: AsyncStream<Value> {
        let (stream, continuation) = AsyncStream.makeStream(of: Value.self, bufferingPolicy: .bufferingNewest(1))
        let observation = property.subscribe(
            initial: true,
            Sink(value: { continuation.yield($0) }, end: { continuation.finish() }))
        continuation.onTermination = { _ in observation.cancel() }
        return stream
    }

    /// Like `observe(during:_:)`, delivering on `actor` instead of the setter's thread.
    ///
    /// Every value is delivered, in order, each in its own turn on the actor; the handler
    /// never runs on the setter's thread. Give an actor with a custom executor to choose the
    /// executor.
    @discardableResult
    public func observe<A: Actor>(
        during lifetime: Lifetime, on actor: A, _ handler: @escaping @Sendable (isolated A, Value) -> Void
    ) -> Observation {
        guard !lifetime.hasEnded else { return .ended }
        let (stream, continuation) = AsyncStream.makeStream(of: Value.self, bufferingPolicy: .unbounded)
        let observation = property.subscribe(
            initial: true,
            Sink(value: { continuation.yield($0) }, end: { continuation.finish() }))
        let task = Task {
            for await value in stream {
                await deliver(value, to: handler, on: actor)
            }
        }
        observation.onCancel {
            continuation.finish()
            task.cancel()
        }
        observation.end(with: lifetime)
        return observation
    }

    /// Like `observe(during:_:)`, delivering on the main actor, in order.
    @discardableResult
    public func observeOnMainActor(
        during lifetime: Lifetime, _ handler: @escaping @MainActor @Sendable (Value) -> Void
    ) -> Observation {
        observe(during: lifetime, on: MainActor.shared) { _, value in MainActor.assumeIsolated { handler(value) } }
    }
}

private func deliver<A: Actor, Value>(
    _ value: Value, to handler: @Sendable (isolated A, Value) -> Void, on actor: isolated A
) {
    handler(actor, value)
}
