#if PostgreSQL
    import Foundation
    import ShelfPostgres
    import ShelfReactive
    import ShelfStore
    import Testing

    /// Migration 0002_saved_views on PostgreSQL: a database of the previous version upgrades,
    /// and the new table notifies live lists, also of commits made by another client (psql).
    @Suite(.enabled(if: PostgresServer.url != nil)) struct PostgresSavedViewMigrationTests {
        @Test func aDatabaseOfThePreviousVersionUpgrades() async throws {
            try await Scratch.withDatabase { url in
                let place = try PostgresLocation(url: url)
                let previous = PostgresMigrator(
                    plan: MigrationPlan(
                        migrations: PostgresMigrator.embedded.migrations.filter { $0.name < "0002" },
                        folder: "Migrations/postgres"))
                let applied = try await PostgresBackend.withConnection(to: place) { connection in
                    try await previous.migrate(on: connection, at: place)
                }
                #expect(applied == ["0001_create_users_and_items"])
                try await Scratch.execute(
                    "INSERT INTO users (name, email, created_at) VALUES ('Ann', 'ann@example.com', 0)", at: url)

                let store = try await Store.open(postgres: url)
                #expect(store.appliedMigrations.first == "0002_saved_views")
                let live = try await store.liveSavedViews()
                #expect((try? live.value.get()) == [])
                // A commit by another client reaches the live list through the new trigger.
                try await Scratch.execute(
                    """
                    INSERT INTO saved_views (name, name_key, query_text, sort_field, sort_direction, owner_id,
                        created_at, updated_at)
                    VALUES ('From psql', 'from psql', 'x', 'title', 'ascending', 1, 0, 0)
                    """, at: url)
                try await waitUntil("the live list shows the view from psql") {
                    (try? live.value.get())?.map(\.name) == ["From psql"]
                }
                #expect(try await store.views.view(named: "FROM PSQL")?.owner == User.ID(1))
                await store.close()
                let recorded = try await Scratch.strings(
                    "SELECT name || ' ' || checksum FROM shelf_migrations ORDER BY name", at: url)
                #expect(recorded == PostgresMigrator.embedded.migrations.map { "\($0.name) \($0.checksum)" })
            }
        }
    }
#endif
