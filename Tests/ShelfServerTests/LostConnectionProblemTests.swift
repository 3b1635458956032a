#if Server
    import HTTPTypes
    @testable import ShelfServer
    import ShelfStore
    import Testing

    /// A lost database connection is a 503 that says whether something may have been done:
    /// a write may have been applied; a read changed nothing (hostile round 14: a live stream's
    /// GET was told "a write may have been applied").
    @Suite struct LostConnectionProblemTests {
        private static var lost: StoreError {
            var error = StoreError(.database, "the connection to 127.0.0.1:5433 was lost")
            error.markConnectionLost()
            return error
        }

        @Test func aReadIsToldNothingWasChanged() {
            let problem = Problem(Self.lost, write: false)
            #expect(problem.status == .serviceUnavailable)
            #expect(problem.headers[.retryAfter] == "1")
            #expect(problem.detail.contains("it only reads: nothing was changed"), "\(problem.detail)")
            #expect(!problem.detail.contains("write"), "\(problem.detail)")
        }

        @Test func aWriteIsToldItMayHaveBeenApplied() {
            for problem in [Problem(Self.lost, write: true), Problem(Self.lost)] {
                #expect(problem.status == .serviceUnavailable)
                #expect(
                    problem.detail.contains("a write may have been applied: read before writing again"),
                    "\(problem.detail)")
            }
        }
    }
#endif
