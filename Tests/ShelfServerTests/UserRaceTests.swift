#if Server
    import Foundation
    import NIOHTTP1
    import Testing

    /// `If-Match` on users is a compare-and-set, as on items (hostile tester: the check was a read
    /// before the write, so two changes made from one read could both succeed).
    @Suite(.serialized) struct UserRaceTests {
        @Test func ofConcurrentChangesFromOneReadExactlyOneWins() async throws {
            try await ServedShelf.with { served in
                var doubleWins = 0
                for round in 0..<30 {
                    let read = try await served.get("/api/users/1")
                    let etag = try #require(read["ETag"])
                    let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                        for writer in 0..<6 {
                            group.addTask {
                                try await served.send(
                                    .PATCH, "/api/users/1", json: #"{"name": "Ann \#(round)-\#(writer)"}"#,
                                    headers: [("If-Match", etag)]
                                ).status
                            }
                        }
                        return try await group.reduce(into: []) { $0.append($1) }
                    }
                    #expect(statuses.allSatisfy { $0 == 200 || $0 == 412 }, "\(statuses)")
                    let wins = statuses.filter { $0 == 200 }.count
                    #expect(wins == 1, "round \(round): \(wins) changes won from one read")
                    if wins > 1 { doubleWins += 1 }
                }
                #expect(doubleWins == 0)
                // A removal from a stale read loses too, and the user stays.
                let read = try await served.get("/api/users/1")
                let etag = try #require(read["ETag"])
                _ = try await served.send(
                    .PATCH, "/api/users/1", json: #"{"name": "Ann"}"#, headers: [("If-Match", etag)])
                #expect(try await served.send(.DELETE, "/api/users/1", headers: [("If-Match", etag)]).status == 412)
                #expect(try await served.get("/api/users/1").status == 200)
            }
        }
    }
#endif
