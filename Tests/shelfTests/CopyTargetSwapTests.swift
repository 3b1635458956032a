import Foundation
import ShelfTestSupport
import Testing

/// A copy into an existing store whose file is moved away or replaced while the copy runs
/// never says it copied (hostile round 3: exit 0 and "Copied: both sides match." while the rows
/// went into the file moved away, and the path held the other store or nothing).
@Suite("shelf copy: a target swapped while the copy runs (end to end)")
struct CopyTargetSwapTests {
    @Test(arguments: ["moved over", "removed"])
    func aCopyWhoseTargetIsSwappedSaysSo(swap: String) async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let source = shelf.databasePath
        #expect(try await shelf.run(["demo", "--db", source, "--users", "5", "--items", "60000"]).status == 0)
        let other = shelf.folder.appendingPathComponent("other.sqlite").path
        _ = try await CopyFixture.make(other, shelf: shelf)
        var overlapped = 0
        for attempt in 0..<3 {
            let target = shelf.folder.appendingPathComponent("target-\(attempt).sqlite").path
            #expect(try await shelf.run(["migrate", "--db", target]).status == 0)
            let spare = shelf.folder.appendingPathComponent("spare-\(attempt).sqlite").path
            try FileManager.default.copyItem(atPath: other, toPath: spare)
            async let copied = shelf.run(["copy", source, target])
            // Swapped once the copy is writing into the target (its -wal grows), if ever.
            var writing = false
            for _ in 0..<600 where !writing {
                try await Task.sleep(for: .milliseconds(50))
                let size = (try? FileManager.default.attributesOfItem(atPath: target + "-wal"))?[.size] as? Int ?? 0
                writing = size > 1 << 20
            }
            if writing {
                overlapped += 1
                if swap == "removed" { unlink(target) } else { rename(spare, target) }
            }
            let result = try await copied
            if writing {
                #expect(result.status != 0, "the copy said it copied: \(result.output)")
                #expect(!result.output.contains("Copied: both sides match."), "\(result.output)")
                #expect(result.error.contains("replaced") || result.error.contains("moved"), "\(result.error)")
            }
        }
        // Each attempt shows the rule only if the swap came while the copy wrote: on a machine
        // so slow or so fast that none did, say so.
        if overlapped == 0 { print("aCopyWhoseTargetIsSwappedSaysSo(\(swap)): no attempt overlapped the copy") }
    }
}
