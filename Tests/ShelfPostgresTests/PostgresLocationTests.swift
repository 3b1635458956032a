#if PostgreSQL
    import ShelfPostgres
    import ShelfStore
    import Testing

    @Suite struct PostgresLocationTests {
        @Test func readsEveryPartOfAURL() throws {
            let place = try PostgresLocation(url: "postgres://ann:s3cret@db.example.com:6543/shelf?sslmode=require")
            #expect(place.host == "db.example.com")
            #expect(place.port == 6543)
            #expect(place.user == "ann")
            #expect(place.password == "s3cret")
            #expect(place.database == "shelf")
            #expect(place.tlsMode == .require)
        }

        @Test func defaultsPortAndTLS() throws {
            let place = try PostgresLocation(url: "postgresql://ann@localhost/shelf")
            #expect(place.port == 5432)
            #expect(place.database == "shelf")
            #expect(place.password == nil)
            #expect(place.tlsMode == .disable)
        }

        @Test func percentDecodesUserPasswordAndDatabase() throws {
            let place = try PostgresLocation(url: "postgres://ann%40corp:p%40ss%3Aw%2Frd@127.0.0.1/my%20shelf")
            #expect(place.user == "ann@corp")
            #expect(place.password == "p@ss:w/rd")
            #expect(place.database == "my shelf")
        }

        @Test func readsIPv6Hosts() throws {
            let place = try PostgresLocation(url: "postgres://ann@[::1]:5433/shelf")
            #expect(place.host == "::1")
            #expect(place.server == "[::1]:5433")
        }

        @Test(arguments: [
            ("http://ann@db/shelf", "not a PostgreSQL URL"),
            ("postgres:///shelf", "names no server host"),
            ("postgres://db/shelf", "names no user"),
            ("postgres://ann@db/shelf?sslmode=verify-full", "sslmode=verify-full"),
            ("postgres://ann@db/shelf?timeout=3", "unknown option timeout"),
            ("postgres://ann@db/a/b", "one database name"),
            ("postgres://ann:pw@db:99999/shelf", "port"),
            ("not a url at all", "not"),
            // A malformed escape never falls back to a default database (which opening migrates).
            ("postgres://u:pw@127.0.0.1:54329/db%C3_a", "not a valid URL"),
            ("postgres://u%C3:pw@127.0.0.1:54329/db", "not a valid URL"),
            ("postgres://u:pw%FF@127.0.0.1:54329/db", "not a valid URL"),
            ("postgres://u:pw@127.0.0.1:54329", "name the database: postgres://USER:PASSWORD@HOST:PORT/DATABASE"),
            ("postgres://u:pw@127.0.0.1:54329/", "name the database: postgres://USER:PASSWORD@HOST:PORT/DATABASE"),
            ("postgres://u:pw@db/shelf?sslmode=disable&sslmode=require", "option twice"),
            ("postgres://u:pw@db/shelf?sslmode=disable&", "empty option"),
            ("postgres://u:pw@db/shelf?", "empty option"),
            ("postgres://u:pw@db/shelf#part", "fragment"),
        ])
        func refusesBadURLsClearly(url: String, expected: String) {
            do {
                _ = try PostgresLocation(url: url)
                Issue.record("\(url) was accepted")
            } catch {
                #expect((error as? StoreError)?.code == .invalidValue)
                #expect("\(error)".contains(expected), "\(error)")
                #expect(!"\(error)".contains("pw@"), "the message repeats the password: \(error)")
            }
        }
    }
#endif
