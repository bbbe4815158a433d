import Foundation
import LNoteBitmap
import LNoteCodecs
import LNoteFormat
import LNoteRender

/// `lnote-render diff EXPECTED ACTUAL`: the golden-image comparison from the command line.
enum DiffCommand {
    static let output = Option<String?>.text("output", short: "o", "diff.png", "Write a diff image (PNG) to this file", absent: "none")

    static let spec = CommandSpec(
        name: "diff", abstract: "Compare two images; exit 0 when they match within the tolerance, 1 otherwise.",
        discussion: """
            A pixel differs when any channel differs by more than --tolerance (0-255). The images match when
            they have the same size and at most --max-differing pixels differ (a count, or a percentage of the
            expected image's pixels: 0.5%). --output writes a picture of the differences: red over the
            tolerance, yellow within it, the expected image faded beneath. Exit status 3: an image could not
            be read or decoded, so no comparison was made.
            """,
        positionals: [PositionalSpec("EXPECTED", help: "Reference PNG or JPEG."),
                      PositionalSpec("ACTUAL", help: "Image to check.")],
        options: [output.spec] + ComparisonOptions.options + ReportOptions.options,
        renamedOptions: ["max-pixels": "max-differing"],
        examples: [.init("golden.png actual.png --tolerance 2 --max-differing 0.1%", "match when at most 0.1% of pixels differ by more than 2/255"),
                   .init("golden.png actual.png -o diff.png", "and a picture of where they differ")],
        exitStatuses: [(ExitStatus.success, "the images match within the tolerance"),
                       (ExitStatus.failure, "the images differ (or the diff image could not be written)"),
                       (ExitStatus.usage, "usage error: the command line was wrong"),
                       (ExitStatus.cannotCompare, "an image could not be read or decoded: nothing was compared")])

    static let subcommand = Subcommand(spec: spec) { args, console throws(UsageError) in
        let reporter = Reporter(args, console: console)
        let comparison = try ComparisonOptions(args)
        let (channelTolerance, allowed) = (comparison.tolerance, comparison.maxDiffering)
        let expectedPath = args.positionals[0], actualPath = args.positionals[1]
        guard let expected = load(expectedPath, reporter: reporter), let actual = load(actualPath, reporter: reporter) else {
            return reporter.finish(ExitStatus.cannotCompare)
        }
        let tolerance = ComparisonTolerance(channelTolerance: channelTolerance,
                                            maxDifferingPixels: allowed.pixels(of: expected.width * expected.height))
        let result = ImageComparison.compare(expected: expected, actual: actual, tolerance: tolerance)
        var status = result.passes ? ExitStatus.success : ExitStatus.failure
        if let output = try args.value(Self.output) {
            // Checked before the picture is allocated. Only images of different sizes get here,
            // so they differ: exit 1, as for a diff image that cannot be written.
            if let diff = ImageComparison.diffImage(expected: expected, actual: actual,
                                                    channelTolerance: tolerance.channelTolerance) {
                do {
                    try AtomicFile.write(try PNGEncoder.encode(diff), toPath: output, display: output)
                } catch {
                    reporter.report(Problem(.error, code: .write, file: output, message: "cannot write the diff image: \(error)"))
                    status = ExitStatus.failure
                }
            } else {
                let size = ImageComparison.diffImageSize(expected: expected, actual: actual)
                reporter.report(Problem(.error, code: .maxPixels, file: output, message:
                    "the diff image of \(expectedPath) (\(expected.width)×\(expected.height)) and "
                    + "\(actualPath) (\(actual.width)×\(actual.height)) would be \(size.width)×\(size.height) pixels, "
                    + "over the limit of \(ImageComparison.maxDiffImagePixels); not written"))
                status = ExitStatus.failure
            }
        }
        reporter.line("\(result.passes ? "match" : "DIFFERENT"): \(result)")
        // Statistics that only mean something for images of one size are null otherwise (a
        // PSNR of 0 would claim a measured, maximal difference).
        let same = result.sizesMatch
        return reporter.finish(status, [
            ("match", .bool(result.passes)), ("identical", .bool(result.identical)),
            ("sizeMatches", .bool(same)),
            ("expected", .object([("path", .string(expectedPath)), ("width", .int(expected.width)), ("height", .int(expected.height))])),
            ("actual", .object([("path", .string(actualPath)), ("width", .int(actual.width)), ("height", .int(actual.height))])),
            ("differingPixels", same ? .int(result.differingPixels) : .null),
            ("changedPixels", same ? .int(result.changedPixels) : .null),
            ("totalPixels", .int(result.totalPixels)),
            ("maxChannelDifference", same ? .int(result.maxChannelDifference) : .null),
            ("meanChannelDifference", same ? .number(result.meanChannelDifference) : .null),
            ("psnr", same && result.psnr.isFinite ? .number(result.psnr) : .null),
            ("tolerance", .int(tolerance.channelTolerance)), ("maxDiffering", .int(tolerance.maxDifferingPixels)),
        ])
    }

    /// Reads and decodes an image; a missing or undecodable file is reported with the reason,
    /// and the command exits with status 3 (the comparison could not run), so CI can tell
    /// "the images differ" (1) from "there was nothing to compare" (3) and a usage error (2).
    static func load(_ path: String, reporter: Reporter) -> Bitmap? {
        // Images given on the command line are the user's own files, not package content: a
        // link they name is followed.
        let real = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        do throws(LNoteError) {
            let bytes = try FileIO.readRegularFile(atPath: real, display: path, maxBytes: 1 << 30)
            do {
                return try ImageDecoder.decode(bytes)
            } catch {
                reporter.report(Problem(.error, code: .image, file: path, message: "not an image that can be decoded: \(error)"))
                return nil
            }
        } catch {
            reporter.report(Problem(error, package: nil))
            return nil
        }
    }
}
