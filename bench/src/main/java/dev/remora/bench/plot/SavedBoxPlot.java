package dev.remora.bench.plot;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.geom.Ellipse2D;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.annotations.CategoryTextAnnotation;
import org.jfree.chart.axis.AxisLocation;
import org.jfree.chart.axis.CategoryAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.DatasetRenderingOrder;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.renderer.category.BoxAndWhiskerRenderer;
import org.jfree.chart.renderer.category.ScatterRenderer;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.data.statistics.BoxAndWhiskerItem;
import org.jfree.data.statistics.DefaultBoxAndWhiskerCategoryDataset;
import org.jfree.data.statistics.DefaultMultiValueCategoryDataset;

/**
 * Box plots of "% of time saved against the baseline" in the style of Figure 5 of "More Efficient Serialization and
 * RMI for Java": one horizontal box per configuration, every measurement a small circle, the box the middle half,
 * the whiskers the 0.1 and 0.9 quantiles, a line at the median and an M at the mean.
 * <pre>java -cp bench/target/benchmarks.jar dev.remora.bench.plot.SavedBoxPlot --in points.csv --out-dir DIR \
 *     [--baseline vanilla] [--what "compute phase"]</pre>
 * {@code points.csv}: header {@code chart,config,saved_pct}, then one row per measurement; writes
 * {@code DIR/<chart>.png} per chart, configurations in the order they first appear. Headless.
 */
public final class SavedBoxPlot {

    private SavedBoxPlot() {
    }

    public static void main(String[] args) throws IOException {
        System.setProperty("java.awt.headless", "true");
        Map<String, String> o = new LinkedHashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            o.put(args[i].replaceFirst("^--", ""), args[i + 1]);
        }
        if (!o.containsKey("in") || !o.containsKey("out-dir")) {
            System.err.println("usage: SavedBoxPlot --in points.csv --out-dir DIR [--baseline NAME] [--what TEXT]");
            System.exit(2);
        }
        Map<String, Map<String, List<Double>>> charts = read(Path.of(o.get("in")));
        Path out = Path.of(o.get("out-dir"));
        Files.createDirectories(out);
        for (Map.Entry<String, Map<String, List<Double>>> e : charts.entrySet()) {
            Path png = out.resolve(e.getKey() + ".png");
            draw(e.getKey(), e.getValue(), o.getOrDefault("baseline", "vanilla"), o.getOrDefault("what", "time"), png);
            System.out.println("wrote " + png);
        }
    }

    static Map<String, Map<String, List<Double>>> read(Path csv) throws IOException {
        Map<String, Map<String, List<Double>>> charts = new LinkedHashMap<>();
        List<String> lines = Files.readAllLines(csv, StandardCharsets.UTF_8);
        for (String line : lines.subList(Math.min(1, lines.size()), lines.size())) {
            String[] f = line.split(",");
            if (f.length < 3 || f[2].isBlank()) {
                continue;
            }
            charts.computeIfAbsent(f[0], k -> new LinkedHashMap<>())
                    .computeIfAbsent(f[1], k -> new ArrayList<>()).add(Double.parseDouble(f[2]));
        }
        return charts;
    }

    /** Quantile of sorted values by linear interpolation. */
    static double quantile(double[] sorted, double q) {
        double pos = q * (sorted.length - 1);
        int i = (int) Math.floor(pos);
        int j = Math.min(i + 1, sorted.length - 1);
        return sorted[i] + (pos - i) * (sorted[j] - sorted[i]);
    }

    static void draw(String chart, Map<String, List<Double>> byConfig, String baseline, String what, Path png)
            throws IOException {
        DefaultBoxAndWhiskerCategoryDataset boxes = new DefaultBoxAndWhiskerCategoryDataset();
        DefaultMultiValueCategoryDataset points = new DefaultMultiValueCategoryDataset();
        for (Map.Entry<String, List<Double>> e : byConfig.entrySet()) {
            double[] v = e.getValue().stream().mapToDouble(Double::doubleValue).sorted().toArray();
            double mean = Arrays.stream(v).average().orElse(Double.NaN);
            boxes.add(new BoxAndWhiskerItem(mean, quantile(v, 0.5), quantile(v, 0.25), quantile(v, 0.75),
                    quantile(v, 0.1), quantile(v, 0.9), v[0], v[v.length - 1], List.of()), "saved", e.getKey());
            points.add(e.getValue(), "each", e.getKey());
        }
        CategoryAxis configs = new CategoryAxis("configuration");
        NumberAxis saved = new NumberAxis("% of " + what + " saved against " + baseline + " (negative: slower)");
        saved.setAutoRangeIncludesZero(true);
        BoxAndWhiskerRenderer box = new BoxAndWhiskerRenderer();
        box.setFillBox(false);
        box.setMeanVisible(false); // an "M" as in the paper, below
        box.setMedianVisible(true);
        box.setMinOutlierVisible(false);
        box.setMaxOutlierVisible(false);
        box.setWhiskerWidth(0.6);
        box.setMaximumBarWidth(0.5);
        box.setSeriesPaint(0, Color.BLACK);
        box.setSeriesOutlinePaint(0, Color.BLACK);
        box.setUseOutlinePaintForWhiskers(true);
        box.setDefaultStroke(new BasicStroke(1.2f));
        CategoryPlot plot = new CategoryPlot(boxes, configs, saved, box);
        ScatterRenderer dots = new ScatterRenderer();
        dots.setSeriesShapesFilled(0, true);
        dots.setSeriesShape(0, new Ellipse2D.Double(-3, -3, 6, 6));
        dots.setSeriesPaint(0, new Color(40, 90, 170, 150));
        dots.setUseSeriesOffset(false);
        plot.setDataset(1, points);
        plot.setRenderer(1, dots);
        plot.setDatasetRenderingOrder(DatasetRenderingOrder.FORWARD);
        plot.setOrientation(PlotOrientation.HORIZONTAL);
        plot.setRangeAxisLocation(AxisLocation.BOTTOM_OR_LEFT);
        for (int c = 0; c < boxes.getColumnCount(); c++) {
            Number mean = boxes.getMeanValue(0, c);
            if (mean != null && !Double.isNaN(mean.doubleValue())) {
                CategoryTextAnnotation m = new CategoryTextAnnotation("M", boxes.getColumnKey(c), mean.doubleValue());
                m.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 13));
                m.setPaint(new Color(180, 30, 30));
                m.setTextAnchor(TextAnchor.BOTTOM_CENTER);
                plot.addAnnotation(m);
            }
        }
        plot.setBackgroundPaint(Color.WHITE);
        plot.setRangeGridlinePaint(new Color(200, 200, 200));
        ValueMarker zero = new ValueMarker(0, Color.GRAY, new BasicStroke(1f));
        plot.addRangeMarker(zero);
        JFreeChart c = new JFreeChart(chart + ": % of " + what + " saved against " + baseline,
                new Font(Font.SANS_SERIF, Font.BOLD, 14), plot, false);
        c.setBackgroundPaint(Color.WHITE);
        int height = 90 + 70 * byConfig.size();
        ChartUtils.saveChartAsPNG(png.toFile(), c, 800, height);
    }
}
