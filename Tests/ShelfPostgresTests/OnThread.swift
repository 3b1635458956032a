#if PostgreSQL
    import Foundation

    /// Runs `body` on a plain thread (it blocks) and waits.
    func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
        }
    }
#endif
