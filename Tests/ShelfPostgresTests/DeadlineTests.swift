#if PostgreSQL
    import Foundation
    @testable import ShelfPostgres
    import Testing

    /// `Deadline.answer`, which bounds the change listener's reads: a query on a connection the
    /// server has terminated can go unanswered (postgres-nio 1.33), and ignores cancellation.
    struct DeadlineTests {
        /// The listener's task group ends when its connection is lost, and cancels the read
        /// still waiting: that must end at once, not when the read's limit has passed. Before,
        /// the listener stayed deaf for the whole limit (10 s) after a forced reconnect.
        @Test func aCancelledWaitEndsAtOnceThoughItsBodyDoesNot() async throws {
            let waiting = Task {
                try await Deadline.answer(within: .seconds(60), leavingWhenCancelled: true) {
                    // Answers after 30 s whatever happens, as a query with no answer coming.
                    await withCheckedContinuation { continuation in
                        DispatchQueue.global().asyncAfter(deadline: .now() + 30) { continuation.resume() }
                    }
                    return 1
                }
            }
            try await Task.sleep(for: .milliseconds(100))
            waiting.cancel()
            // Before, the wait went on until the body answered (30 s later) and returned its 1:
            // the cancellation itself is the check, not a time (a full suite on 2 cores held
            // this test's task for 88 s in CI).
            await #expect(throws: CancellationError.self) { try await waiting.value }
        }

        @Test func anAnswerInTimeIsReturnedAndALateOneIsNil() async throws {
            let quick = try await Deadline.answer(within: .seconds(30)) { 7 }
            #expect(quick == 7)
            let late = try await Deadline.answer(within: .milliseconds(50)) {
                await withCheckedContinuation { continuation in
                    DispatchQueue.global().asyncAfter(deadline: .now() + 2) { continuation.resume() }
                }
                return 8
            }
            #expect(late == nil)
        }
    }
#endif
