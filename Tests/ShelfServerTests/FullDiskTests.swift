#if Server
    import Foundation
    import NIOHTTP1
    import ShelfTestSupport
    import Testing

    /// Hostile round 16: a write refused because the store's disk was full was answered
    /// "500 Internal Server Error". It is a 507 that says nothing was written, and the same
    /// request works once there is room.
    @Suite(.serialized) struct FullDiskTests {
        /// Mounts a tmpfs of `size` on `folder` (root, in a container that allows it).
        static func mount(_ folder: String, size: String, remount: Bool = false) -> Bool {
            let options = (remount ? "remount," : "") + "size=" + size
            return
                (try? ChildProcess("/bin/mount", ["-t", "tmpfs", "-o", options, "tmpfs", folder], environment: [:])
                .wait()) == 0
        }

        static var canMount: Bool {
            guard getuid() == 0 else { return false }
            let folder = NSTemporaryDirectory() + "shelf-mount-\(UUID().uuidString)"
            guard (try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)) != nil
            else { return false }
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let mounted = mount(folder, size: "64k")
            if mounted { _ = try? ChildProcess("/bin/umount", [folder], environment: [:]).wait() }
            return mounted
        }

        @Test(.enabled(if: canMount, "mounts a tmpfs (root, with the right to mount)"))
        func aWriteOnAFullDiskIsA507AndWorksOnceThereIsRoom() async throws {
            let folder = try TemporaryFolder()
            let disk = folder.path("disk")
            try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
            try #require(Self.mount(disk, size: "2m"))
            defer {
                _ = try? ChildProcess("/bin/umount", ["-l", disk], environment: [:]).wait()
                folder.remove()
            }
            try await ServedShelf.with(location: disk + "/shelf.sqlite") { served in
                let notes = String(repeating: "n", count: 20_000)
                var stored = 0
                var refused: ServedShelf.Reply?
                for index in 0..<400 {
                    let reply = try await served.send(
                        .POST, "/api/items",
                        json: #"{"title": "item \#(index)", "user": "ann@example.com", "notes": "\#(notes)"}"#)
                    if reply.status == 201 {
                        stored += 1
                    } else {
                        refused = reply
                        break
                    }
                }
                let reply = try #require(refused, "2 MB held \(stored) items of 20 KB")
                #expect(reply.status == 507, "\(reply.status) \(reply.body)")
                #expect(reply.detail.contains("disk is full"), "\(reply.detail)")
                #expect(reply.detail.contains("Nothing was changed"), "\(reply.detail)")
                let listed = try await served.get("/api/items?limit=500")
                #expect(listed.status == 200)
                #expect(
                    listed.body.components(separatedBy: "\"title\"").count - 1 == stored, "only what was answered 201")

                try #require(Self.mount(disk, size: "64m", remount: true))
                let again = try await served.send(
                    .POST, "/api/items", json: #"{"title": "after", "user": "ann@example.com", "notes": "\#(notes)"}"#)
                #expect(again.status == 201, "\(again.body)")
            }
        }
    }
#endif
