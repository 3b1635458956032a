#if Server
    import Foundation
    import HTTPTypes
    import Hummingbird
    @testable import ShelfServer
    import ShelfStore
    import Testing

    /// A write that committed is answered as done even when reading it back fails (hostile round
    /// 10: during a PostgreSQL outage a committed POST was answered 503 "the database cannot take
    /// the request now", which says nothing was done, and a client that retried added the item
    /// twice). The read-back is where the server failed; these give it the store's own errors.
    @Suite struct CommittedWriteTests {
        private static func unreachable() -> StoreError {
            var error = StoreError(
                .database, "cannot reach the PostgreSQL server at 127.0.0.1:5499 (connection refused)")
            error.markServerUnavailable()
            return error
        }

        @Test func aReadBackThatCannotReachTheServerStillAnswersCreated() async throws {
            let response = try await CommittedWrite.answer(
                .created, "item 42", id: 42, at: "/api/items/42", location: true
            ) { throw Self.unreachable() }
            #expect(response.status == .created)
            #expect(response.headers[.location] == "/api/items/42")
            #expect(response.headers[.retryAfter] == nil)
        }

        @Test func theAnswerNamesTheIDAndSaysNotToWriteAgain() async throws {
            var lost = StoreError(.database, "the connection to 127.0.0.1:5433 was lost")
            lost.markConnectionLost()
            let response = CommittedWrite.written(
                .ok, "user 7", id: 7, at: "/api/users/7", location: false, readFailure: lost)
            #expect(response.status == .ok)
            #expect(response.headers[.location] == nil)
            let body = String(
                decoding: CommittedWrite.body("user 7", id: 7, at: "/api/users/7", readFailure: lost).encoded(),
                as: UTF8.self)
            #expect(body.contains("\"id\":7"), "\(body)")
            #expect(body.contains("user 7 was written"), "\(body)")
            #expect(body.contains("do not write it again"), "\(body)")
            #expect(body.contains("was lost"), "\(body)")
        }

        @Test func aRemovedRowAndACancelledRequestArePassedOn() async throws {
            await #expect(throws: Problem.self) {
                try await CommittedWrite.answer(.ok, "user 7", id: 7, at: "/api/users/7", location: false) {
                    throw Problem(.notFound, "user 7 was removed meanwhile")
                }
            }
            await #expect(throws: CancellationError.self) {
                try await CommittedWrite.answer(.ok, "user 7", id: 7, at: "/api/users/7", location: false) {
                    throw CancellationError()
                }
            }
        }
    }
#endif
