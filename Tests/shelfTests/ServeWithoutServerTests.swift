#if !Server
    import Foundation
    import Testing

    /// A shelf built without the Server trait says how to get `serve` and `tokens`.
    @Suite struct ServeWithoutServerTests {
        @Test(arguments: [["serve"], ["tokens", "list"], ["tokens", "create", "--user", "ann@example.com"]])
        func saysHowToBuildWithTheServer(_ arguments: [String]) async throws {
            let shelf = try ShelfProcess()
            defer { shelf.cleanUp() }
            _ = try await shelf.run([
                "users", "add", "--db", shelf.databasePath, "--name", "Ann", "--email", "ann@example.com",
            ])
            let result = try await shelf.run(arguments + ["--db", shelf.databasePath])
            #expect(result.status == 1)
            #expect(result.error.contains("built without the HTTP server"))
            #expect(result.error.contains("swift build --traits Server"))
            // It names the command asked for, not always `serve`.
            let command = arguments.prefix { !$0.hasPrefix("--") }.joined(separator: " ")
            #expect(result.error.contains("then run `.build/debug/shelf \(command)` again"), "\(result.error)")
            #expect(result.output.isEmpty)
        }
    }
#endif
