#if PostgreSQL
    import Foundation
    import ShelfPostgres
    import ShelfPostgresTesting
    import ShelfStore
    import Testing

    /// What opening says when the server, the password or the database is wrong.
    @Suite(.enabled(if: PostgresServer.url != nil)) struct PostgresOpenErrorTests {
        private var server: PostgresLocation {
            get throws { try PostgresLocation(url: PostgresServer.url ?? "") }
        }

        /// A role the test makes, with a password; the URL gives another. A server that lets
        /// that role in anyway (`trust` in pg_hba.conf, as a stock test server has) checks no
        /// password, and the test says so and is cancelled.
        @Test func wrongPasswordSaysAuthenticationFailed() async throws {
            var checked = true
            try await Scratch.withDatabase { database in
                try await PostgresScratch.withPasswordUser(databaseURL: database) { url in
                    var place = try PostgresLocation(url: url)
                    let right = try #require(place.password)
                    place.password = "definitely-not-the-password"
                    let outcome: Result<PostgresBackend, any Error>
                    do {
                        outcome = .success(try await PostgresBackend.open(url: Self.url(place)))
                    } catch {
                        outcome = .failure(error)
                    }
                    if case .success(let backend) = outcome {
                        await backend.close()
                        checked = false
                        return
                    }
                    #expect {
                        _ = try outcome.get()
                    } throws: { error in
                        let message = "\(error)"
                        return StoreError.code(of: error) == .database
                            && message.contains("authentication failed for user \(place.user)")
                            && message.contains("check the user and password")
                            && !message.contains("definitely-not-the-password") && !message.contains(right)
                    }
                }
            }
            if !checked {
                // Cancelled after the role and database are gone: a cancelled task could not drop them.
                let reason =
                    "the server at \(try server.server) does not check passwords (pg_hba.conf trusts this host), "
                    + "so a wrong one cannot be tested there; point SHELF_TEST_POSTGRES at a server "
                    + "that asks for passwords (scram-sha-256 or md5) to test it"
                print("wrongPasswordSaysAuthenticationFailed cancelled: \(reason)")
                try Test.cancel(Comment(rawValue: reason))
            }
        }

        @Test func missingDatabaseSaysHowToCreateIt() async throws {
            let place = try server.with(database: "shelf_missing_\(UInt32.random(in: 0...UInt32.max))")
            await #expect {
                _ = try await PostgresBackend.open(url: Self.url(place))
            } throws: { error in
                "\(error)".contains("database \(place.database) does not exist on \(place.server)")
                    && "\(error)".contains("createdb \(place.database)")
            }
        }

        @Test func closedPortSaysTheServerCannotBeReached() async throws {
            var place = try server
            place.host = "127.0.0.1"
            place.port = 1
            await #expect {
                _ = try await PostgresBackend.open(url: Self.url(place))
            } throws: { error in
                StoreError.code(of: error) == .database
                    && "\(error)".contains("cannot reach the PostgreSQL server at 127.0.0.1:1 (connection refused)")
                    && (error as? StoreError)?.hint == .checkDatabaseLocation
            }
        }

        @Test func requiredTLSOnAServerWithoutItSaysSo() async throws {
            let place = try server
            let url = Self.url(place) + "?sslmode=require"
            await #expect {
                _ = try await PostgresBackend.open(url: url)
            } throws: { error in
                StoreError.code(of: error) == .database && "\(error)".contains("TLS")
                    && "\(error)".contains(place.server)
            }
        }

        /// The pool would wait for a connection without end; the call ends with the reason.
        @Test func aDatabaseDroppedWhileOpenEndsCallsWithTheReason() async throws {
            try await Scratch.withDatabase { url in
                let store = try await PostgresBackend.open(url: url)
                store.pool.leasePatience = .milliseconds(300)
                _ = try await store.users.users()
                try await PostgresScratch.drop(url: url)
                await #expect {
                    _ = try await store.users.users()
                } throws: { error in
                    "\(error)".contains("does not exist") && "\(error)".contains("createdb")
                }
                await store.close()
            }
        }

        private static func url(_ place: PostgresLocation) -> String {
            var components = URLComponents()
            components.scheme = "postgres"
            components.user = place.user
            components.password = place.password
            components.host = place.host
            components.port = place.port
            components.path = "/" + place.database
            return components.string ?? ""
        }
    }
#endif
