#if Server
    import Foundation
    import NIOHTTP1
    import Testing

    /// The user and view routes, and their errors in the command line's words.
    @Suite(.serialized) struct UserRouteTests {
        @Test func usersAreAddedChangedAndRemovedWithTheirItemsCounted() async throws {
            try await ServedShelf.with { served in
                let added = try await served.send(
                    .POST, "/api/users", json: #"{"name": "Bo", "email": "bo@example.com"}"#)
                #expect(added.status == 201)
                let id = try #require(added.json["id"] as? Int)
                #expect(added["Location"] == "/api/users/\(id)")
                let etag = try #require(added["ETag"])
                for title in ["One", "Two"] {
                    let item = try await served.send(
                        .POST, "/api/items", json: #"{"title": "\#(title)", "user_id": \#(id)}"#)
                    #expect(item.status == 201)
                }
                #expect(try await served.send(.PATCH, "/api/users/\(id)", json: #"{"name": "Bob"}"#).status == 428)
                let renamed = try await served.send(
                    .PATCH, "/api/users/\(id)", json: #"{"name": "Bob"}"#, headers: [("If-Match", etag)])
                #expect(renamed.status == 200)
                #expect(renamed.json["name"] as? String == "Bob")
                let newTag = try #require(renamed["ETag"])
                #expect(newTag != etag)
                #expect(
                    try await served.send(.DELETE, "/api/users/\(id)", headers: [("If-Match", etag)]).status == 412)
                // Bo's saved view shows only Bo's items: the removal names it (it widens to everyone's).
                let saved = try await served.shelf.runAsync(
                    ["views", "save", "Bo's open", "--query", "status:open", "--user", "bo@example.com"])
                #expect(saved.status == 0, "\(saved.error)")
                let removed = try await served.send(.DELETE, "/api/users/\(id)", headers: [("If-Match", newTag)])
                #expect(removed.status == 200)
                #expect(removed.json["items_removed"] as? Int == 2)
                #expect(removed.json["views_widened"] as? [String] == ["Bo's open"])
                let message = try #require(removed.json["message"] as? String)
                #expect(message.contains("“Bo's open” showed only their items and now shows everyone's"), "\(message)")
                #expect(try await served.get("/api/users/\(id)").status == 404)
                let list = try await served.get("/api/users")
                #expect(list.json["count"] as? Int == 1)
                #expect((list.json["users"] as? [[String: Any]])?.first?["email"] as? String == "ann@example.com")
            }
        }

        @Test func errorsSayWhatTheCommandLineSays() async throws {
            try await ServedShelf.with { served in
                let cli = served.shelf
                // A taken email: 409, with the message `shelf users add` prints.
                let taken = try await served.send(
                    .POST, "/api/users", json: #"{"name": "A", "email": "ANN@example.com"}"#)
                #expect(taken.status == 409)
                let takenCLI = try await cli.runAsync(["users", "add", "--name", "A", "--email", "ANN@example.com"])
                #expect(takenCLI.error == "Error: \(taken.detail)\n")
                // A malformed email.
                let bad = try await served.send(.POST, "/api/users", json: #"{"name": "A", "email": "not an email"}"#)
                #expect(bad.status == 400)
                let badCLI = try await cli.runAsync(["users", "add", "--name", "A", "--email", "not an email"])
                #expect(badCLI.error == "Error: \(bad.detail)\n")
                // A title over 500 characters.
                let long = String(repeating: "x", count: 501)
                let tooLong = try await served.send(
                    .POST, "/api/items", json: #"{"title": "\#(long)", "user": "ann@example.com"}"#)
                #expect(tooLong.status == 400)
                let tooLongCLI = try await cli.runAsync(["items", "add", "--user", "ann@example.com", "--title", long])
                #expect(tooLongCLI.error == "Error: \(tooLong.detail)\n")
                // An unknown owner.
                let nobody = try await served.send(
                    .POST, "/api/items", json: #"{"title": "T", "user": "zed@example.com"}"#)
                #expect(nobody.status == 400)
                #expect(nobody.detail.hasPrefix("no user has the email 'zed@example.com'"))
                #expect(try await served.get("/api/items").json["count"] as? Int == 0, "nothing was stored")
            }
        }

        @Test func savedViewsAreListed() async throws {
            let prepare: (ServedShelfCLI) throws -> Void = { cli in
                let saved = try cli.run(["views", "save", "Urgent", "--query", "prio:>=2"])
                #expect(saved.status == 0, "\(saved.error)")
            }
            try await ServedShelf.with(prepare: prepare) { served in
                let views = try await served.get("/api/views")
                #expect(views.status == 200)
                #expect(views.json["count"] as? Int == 1)
                let view = try #require((views.json["views"] as? [[String: Any]])?.first)
                #expect(view["name"] as? String == "Urgent")
                #expect(view["query"] as? String == "prio:>=2")
            }
        }
    }
#endif
