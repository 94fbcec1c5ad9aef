package dev.remora.serializer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.math.RoundingMode;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URL;
import java.text.DecimalFormat;
import java.text.MessageFormat;
import java.text.SimpleDateFormat;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.Period;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Calendar;
import java.util.Collections;
import java.util.Comparator;
import java.util.Currency;
import java.util.Date;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.GregorianCalendar;
import java.util.HashMap;
import java.util.Hashtable;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.LinkedList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.Properties;
import java.util.Set;
import java.util.SimpleTimeZone;
import java.util.TimeZone;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.Vector;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The JDK's own serializable types, as applications pass them in remote calls: each read back by Remora's stream as
 * the JDK's stream reads it back (class, state, and the behaviour that state drives: a tree map's comparator, a
 * linked map's access order, a queue's order, a calendar's fields), compared through a rendering of each.
 */
class JdkTypesTest {

    enum Color { RED, GREEN, BLUE }

    private static List<Object> values() throws Exception {
        List<Object> v = new ArrayList<>();
        v.add(new BigDecimal("-12345678901234567890.000123"));
        v.add(new BigInteger("-98765432109876543210987654321"));
        v.add(new MathContext(7, RoundingMode.HALF_EVEN));
        v.add(InetAddress.getByAddress("host", new byte[] {127, 0, 0, 1}));
        v.add(Inet6Address.getByAddress("six", new byte[16], 3));
        v.add(InetSocketAddress.createUnresolved("example.org", 8080));
        v.add(new URI("http://u@example.org:81/p?q#f"));
        v.add(new URL("http://example.org/a/b?c=d"));
        v.add(new DecimalFormat("#,##0.00;(#)"));
        v.add(new MessageFormat("{0} of {1,number,integer}", Locale.GERMANY));
        SimpleDateFormat sdf = new SimpleDateFormat("yyyy-MM-dd HH:mm zzz", Locale.FRANCE);
        sdf.setTimeZone(TimeZone.getTimeZone("Asia/Tokyo"));
        v.add(sdf);
        v.add(Duration.ofSeconds(3, 7));
        v.add(Instant.ofEpochSecond(1_700_000_000L, 123));
        v.add(LocalDate.of(2026, 11, 29));
        v.add(LocalDateTime.of(2026, 11, 29, 9, 5, 21, 17));
        v.add(OffsetDateTime.of(2026, 1, 2, 3, 4, 5, 6, ZoneOffset.ofHours(-5)));
        v.add(Period.of(1, 2, 3));
        v.add(ZoneId.of("Europe/Paris"));
        v.add(ZonedDateTime.of(2026, 3, 29, 2, 30, 0, 0, ZoneId.of("Europe/Paris")));
        GregorianCalendar cal = new GregorianCalendar(TimeZone.getTimeZone("America/New_York"), Locale.US);
        cal.setTimeInMillis(1_700_000_000_000L);
        cal.setFirstDayOfWeek(Calendar.MONDAY);
        v.add(cal);
        v.add(new Date(1_700_000_000_123L));
        v.add(new java.sql.Timestamp(1_700_000_000_123L));
        v.add(new SimpleTimeZone(3_600_000, "Custom/Zone", Calendar.MARCH, -1, Calendar.SUNDAY, 3_600_000,
                Calendar.OCTOBER, -1, Calendar.SUNDAY, 7_200_000));
        v.add(TimeZone.getTimeZone("Australia/Lord_Howe"));
        v.add(Locale.forLanguageTag("sr-Latn-RS-u-nu-arab"));
        v.add(Currency.getInstance("CHF"));
        v.add(UUID.fromString("123e4567-e89b-12d3-a456-426614174000"));
        v.add(Pattern.compile("a(b+)c", Pattern.CASE_INSENSITIVE | Pattern.MULTILINE));
        BitSet bits = new BitSet();
        bits.set(3);
        bits.set(700);
        v.add(bits);
        EnumMap<Color, String> em = new EnumMap<>(Color.class);
        em.put(Color.BLUE, "b");
        v.add(em);
        v.add(EnumSet.of(Color.GREEN, Color.BLUE));
        v.add(EnumSet.noneOf(Color.class));
        LinkedHashMap<String, Integer> access = new LinkedHashMap<>(16, 0.75f, true);
        access.put("a", 1);
        access.put("b", 2);
        access.put("c", 3);
        v.add(access);
        TreeMap<String, Integer> reversed = new TreeMap<>(Collections.reverseOrder());
        reversed.put("x", 1);
        reversed.put("y", 2);
        v.add(reversed);
        TreeSet<String> ci = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
        ci.addAll(List.of("b", "A", "c"));
        v.add(ci);
        PriorityQueue<Integer> pq = new PriorityQueue<>(Comparator.reverseOrder());
        pq.addAll(List.of(5, 1, 9, 3));
        v.add(pq);
        v.add(new ArrayDeque<>(List.of(1, 2, 3)));
        v.add(new LinkedList<>(List.of("l", "m")));
        v.add(new Vector<>(List.of(1, "two")));
        Hashtable<String, String> ht = new Hashtable<>();
        ht.put("k", "v");
        v.add(ht);
        Properties defaults = new Properties();
        defaults.setProperty("d", "1");
        Properties p = new Properties(defaults);
        p.setProperty("p", "2");
        v.add(p);
        IdentityHashMap<String, Integer> idm = new IdentityHashMap<>();
        idm.put("i", 1);
        v.add(idm);
        v.add(new LinkedHashSet<>(List.of(3, 1, 2)));
        v.add(new ConcurrentHashMap<>(Map.of("c", 1)));
        ConcurrentSkipListMap<String, Integer> skip = new ConcurrentSkipListMap<>(Comparator.reverseOrder());
        skip.put("s", 1);
        skip.put("t", 2);
        v.add(skip);
        v.add(new ConcurrentSkipListSet<>(List.of(2, 1)));
        v.add(new ConcurrentLinkedDeque<>(List.of("q")));
        v.add(new CopyOnWriteArrayList<>(List.of(1, 2)));
        ArrayBlockingQueue<Integer> abq = new ArrayBlockingQueue<>(5, true);
        abq.addAll(List.of(1, 2));
        v.add(abq);
        v.add(new LinkedBlockingQueue<>(List.of(7)));
        v.add(new AtomicLong(42));
        v.add(new AtomicReference<>("ref"));
        v.add(new AtomicIntegerArray(new int[] {1, 2, 3}));
        DoubleAdder da = new DoubleAdder();
        da.add(1.5);
        v.add(da);
        LongAccumulator acc = new LongAccumulator(
                (java.util.function.LongBinaryOperator & java.io.Serializable) Long::max, Long.MIN_VALUE);
        acc.accumulate(17);
        v.add(acc);
        v.add(Collections.unmodifiableMap(new HashMap<>(Map.of("u", 1))));
        v.add(Collections.synchronizedList(new ArrayList<>(List.of(1))));
        v.add(Collections.checkedList(new ArrayList<>(List.of("c")), String.class));
        v.add(Collections.emptySortedSet());
        v.add(Collections.singletonMap("k", List.of()));
        v.add(Collections.nCopies(3, "n"));
        v.add(List.of(1, 2, 3));
        v.add(Set.of("only"));
        v.add(Map.of("a", 1, "b", 2));
        v.add(Arrays.asList("as", "list"));
        v.add(TimeUnit.MICROSECONDS);
        v.add(Optional.class);
        v.add(new StackTraceElement("loader", "module", "1.0", "C", "m", "C.java", 12));
        IllegalStateException ise = new IllegalStateException("outer", new java.io.IOException("cause"));
        ise.addSuppressed(new ArithmeticException("suppressed"));
        v.add(ise);
        return v;
    }

    /** What a value is, and what its state makes it do, as text. */
    private static String render(Object o) throws Exception {
        StringBuilder s = new StringBuilder(o.getClass().getName()).append(": ");
        if (o instanceof LinkedHashMap) {
            @SuppressWarnings("unchecked")
            LinkedHashMap<String, Integer> m = (LinkedHashMap<String, Integer>) o;
            m.get("a"); // moves "a" last in an access-ordered map
            return s.append(m).toString();
        }
        if (o instanceof TreeMap || o instanceof TreeSet || o instanceof ConcurrentSkipListMap) {
            if (o instanceof TreeSet) {
                @SuppressWarnings("unchecked")
                TreeSet<String> t = (TreeSet<String>) o;
                t.add("a"); // a case-insensitive set already holds "A"
            }
            return s.append(o).toString();
        }
        if (o instanceof PriorityQueue) {
            PriorityQueue<?> q = new PriorityQueue<>((PriorityQueue<?>) o);
            StringBuilder order = new StringBuilder();
            while (!q.isEmpty()) {
                order.append(q.poll()).append(' ');
            }
            return s.append(order).toString();
        }
        if (o instanceof GregorianCalendar) {
            GregorianCalendar c = (GregorianCalendar) o;
            c.add(Calendar.DAY_OF_MONTH, 1);
            return s.append(c.getTimeInMillis()).append(' ').append(c.getTimeZone().getID()).append(' ')
                    .append(c.get(Calendar.WEEK_OF_YEAR)).append(' ').append(c.getFirstDayOfWeek()).toString();
        }
        if (o instanceof SimpleDateFormat) {
            return s.append(((SimpleDateFormat) o).format(new Date(0))).toString();
        }
        if (o instanceof DecimalFormat) {
            return s.append(((DecimalFormat) o).format(-1234.567)).toString();
        }
        if (o instanceof MessageFormat) {
            return s.append(((MessageFormat) o).format(new Object[] {"x", 12345})).toString();
        }
        if (o instanceof Pattern) {
            Pattern p = (Pattern) o;
            return s.append(p.pattern()).append(' ').append(p.flags()).append(' ')
                    .append(p.matcher("xABBc").find()).toString();
        }
        if (o instanceof TimeZone) {
            TimeZone z = (TimeZone) o;
            return s.append(z.getID()).append(' ').append(z.getOffset(1_700_000_000_000L)).append(' ')
                    .append(z.getOffset(1_690_000_000_000L)).append(' ').append(z.useDaylightTime()).toString();
        }
        if (o instanceof Properties) {
            Properties p = (Properties) o;
            return s.append(p).append(" d=").append(p.getProperty("d")).toString();
        }
        if (o instanceof ArrayBlockingQueue) {
            ArrayBlockingQueue<?> q = (ArrayBlockingQueue<?>) o;
            return s.append(q).append(" remaining ").append(q.remainingCapacity()).toString();
        }
        if (o instanceof Throwable) {
            Throwable t = (Throwable) o;
            return s.append(t).append(" cause ").append(t.getCause()).append(" suppressed ")
                    .append(Arrays.toString(t.getSuppressed())).append(" trace ").append(t.getStackTrace().length)
                    .toString();
        }
        if (o instanceof InetAddress) {
            InetAddress a = (InetAddress) o;
            return s.append(a).append(' ').append(a.getHostName()).append(' ')
                    .append(a instanceof Inet6Address ? ((Inet6Address) a).getScopeId() : -1).toString();
        }
        if (o instanceof DoubleAdder || o instanceof LongAccumulator) {
            return s.append(o).toString();
        }
        boolean valueHash = (o instanceof Map && !(o instanceof IdentityHashMap)) || o instanceof List
                || o instanceof Set;
        return s.append(o).append(" hash ").append(valueHash ? o.hashCode() : 0).toString();
    }

    /** Where {@code ours[i]} renders other than {@code jdk[i]}: one line pair each, labelled. */
    private static void compare(String label, Object[] jdk, Object[] ours, List<String> differences)
            throws Exception {
        for (int i = 0; i < jdk.length; i++) {
            String j = render(jdk[i]);
            String o = render(ours[i]);
            if (!j.equals(o)) {
                differences.add(label + " JDK:    " + j + "\n" + label + " Remora: " + o);
            }
        }
    }

    @Test
    void eachReadsBackAsTheJdksStreamReadsIt() throws Exception {
        List<String> differences = new ArrayList<>();
        RoundTrip rt = new RoundTrip();
        for (Object v : values()) {
            compare("(alone)", new Object[] {RoundTrip.jdk(v)}, new Object[] {rt.roundTrip(v)}, differences);
        }
        // all at once, sharing one stream as a call's arguments do
        compare("(one stream)", RoundTrip.jdkAll(values().toArray()), rt.roundTripAll(values().toArray()),
                differences);
        assertEquals("", String.join("\n", differences));
    }

    /** The same once each class is past its first objects, read by its generated codec (codegen.after). */
    @Test
    void eachReadsBackSoThroughGeneratedCodecs() throws Exception {
        RoundTrip rt = new RoundTrip();
        for (int i = 0; i < 1100; i++) {
            rt.roundTripAll(values().toArray());
        }
        List<String> differences = new ArrayList<>();
        compare("(generated)", RoundTrip.jdkAll(values().toArray()), rt.roundTripAll(values().toArray()),
                differences);
        assertEquals("", String.join("\n", differences));
    }
}
