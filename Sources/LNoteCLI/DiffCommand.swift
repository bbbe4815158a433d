import Foundation
import LNoteBitmap
import LNoteCodecs
import LNoteFormat
import LNoteRender

/// `lnote-render diff EXPECTED ACTUAL`: the golden-image comparison from the command line.
enum DiffCommand {
    static let spec = CommandSpec(
        name: "diff", abstract: "Compare two images; exit 0 when they match within the tolerance, 1 otherwise.",
        discussion: """
            A pixel differs when any channel differs by more than --tolerance (0-255). The images match when
            they have the same size and at most --max-pixels pixels differ. --output writes a picture of the
            differences: red over the tolerance, yellow within it, the expected image faded beneath.
            """,
        positionals: [PositionalSpec("EXPECTED", help: "Reference PNG or JPEG."),
                      PositionalSpec("ACTUAL", help: "Image to check.")],
        options: [
            .value("output", short: "o", "diff.png", help: "Write a diff image (PNG)."),
            .value("tolerance", "N", help: "Per-channel tolerance, 0-255 (default 0)."),
            .value("max-pixels", "N", help: "Pixels allowed over the tolerance (default 0)."),
            .flag("json", help: "Print the statistics as one JSON object."),
        ])

    static let subcommand = Subcommand(spec: spec) { args, console throws(UsageError) in
        let tolerance = ComparisonTolerance(channelTolerance: try args.int("tolerance", in: 0...255) ?? 0,
                                            maxDifferingPixels: try args.int("max-pixels", in: 0...Int(Int32.max)) ?? 0)
        let expectedPath = args.positionals[0], actualPath = args.positionals[1]
        guard let expected = load(expectedPath, console: console), let actual = load(actualPath, console: console) else {
            return ExitStatus.usage
        }
        let result = ImageComparison.compare(expected: expected, actual: actual, tolerance: tolerance)
        if let output = args.string("output") {
            // Checked before the picture is allocated. Only images of different sizes get here,
            // so they differ: exit 1, as for a diff image that cannot be written.
            guard let diff = ImageComparison.diffImage(expected: expected, actual: actual,
                                                       channelTolerance: tolerance.channelTolerance) else {
                let size = ImageComparison.diffImageSize(expected: expected, actual: actual)
                console.error("error: \(output): the diff image of \(expectedPath) (\(expected.width)×\(expected.height)) and "
                              + "\(actualPath) (\(actual.width)×\(actual.height)) would be \(size.width)×\(size.height) pixels, "
                              + "over the limit of \(ImageComparison.maxDiffImagePixels); not written")
                return ExitStatus.failure
            }
            do {
                try AtomicFile.write(try PNGEncoder.encode(diff), toPath: output, display: output)
            } catch {
                console.error("error: \(output): cannot write the diff image: \(error)")
                return ExitStatus.failure
            }
        }
        if args.flag("json") {
            console.print(JSONOutput.object([
                ("match", .bool(result.passes)), ("identical", .bool(result.identical)),
                ("sizeMatches", .bool(result.sizesMatch)),
                ("expected", .object([("width", .int(expected.width)), ("height", .int(expected.height))])),
                ("actual", .object([("width", .int(actual.width)), ("height", .int(actual.height))])),
                ("differingPixels", .int(result.differingPixels)), ("changedPixels", .int(result.changedPixels)),
                ("totalPixels", .int(result.totalPixels)), ("maxChannelDifference", .int(result.maxChannelDifference)),
                ("meanChannelDifference", .number(result.meanChannelDifference)),
                ("psnr", result.psnr.isFinite ? .number(result.psnr) : .null),
                ("tolerance", .int(tolerance.channelTolerance)), ("maxPixels", .int(tolerance.maxDifferingPixels)),
            ]).text)
        } else {
            console.print("\(result.passes ? "match" : "DIFFERENT"): \(result)")
        }
        return result.passes ? ExitStatus.success : ExitStatus.failure
    }

    /// Reads and decodes an image; a missing or undecodable file is reported (exit 2, like a
    /// usage error, so CI tells "the images differ" from "the comparison could not run").
    static func load(_ path: String, console: Console) -> Bitmap? {
        // Images given on the command line are the user's own files, not package content.
        guard let data = FileManager.default.contents(atPath: path) else {
            console.error("error: \(path): cannot read the file")
            return nil
        }
        do {
            return try ImageDecoder.decode([UInt8](data))
        } catch {
            console.error("error: \(path): \(error)")
            return nil
        }
    }
}
