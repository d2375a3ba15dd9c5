import edu.stanford.nlp.ling.CoreAnnotations;
import edu.stanford.nlp.ling.CoreLabel;
import edu.stanford.nlp.parser.lexparser.LexicalizedParser;
import edu.stanford.nlp.parser.lexparser.LexicalizedParserQuery;
import edu.stanford.nlp.pipeline.Annotation;
import edu.stanford.nlp.pipeline.StanfordCoreNLP;
import edu.stanford.nlp.trees.Tree;
import edu.stanford.nlp.util.CoreMap;
import edu.stanford.nlp.util.ScoredObject;
import org.json.simple.JSONArray;
import org.json.simple.JSONObject;
import java.io.*;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.*;

/** Times CoreNLP 3.6.0's englishPCFG parser as SPICE's pipeline runs it, on captions read one per line.
 *  The captions are tokenized and split into sentences by the pipeline's tokenizer (timed apart); then every
 *  sentence is parsed as ParserAnnotator does it (a new query per sentence, the 1-best k-best parse, the
 *  CoreNLP flag -retainTmpSubcategories), PASSES times over (wall and process CPU time, JIT and garbage
 *  collector threads included, per pass). Prints one JSON line of timings, then one
 *  JSON line per caption with its sentences' tokens and trees (from the first pass). */
public class ParseTimer {
  public static void main(String[] args) throws Exception {
    long uptimeAtMainMs = ManagementFactory.getRuntimeMXBean().getUptime();
    int passes = args.length > 0 ? Integer.parseInt(args[0]) : 1;
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    List<String> captions = new ArrayList<>();
    for (String line; (line = in.readLine()) != null; ) captions.add(line);

    long t0 = System.nanoTime();
    Properties props = new Properties();
    props.setProperty("annotators", "tokenize,ssplit");
    StanfordCoreNLP tokenizer = new StanfordCoreNLP(props);
    List<List<List<CoreLabel>>> sentences = new ArrayList<>();
    for (String caption : captions) {
      Annotation ann = new Annotation(caption);
      tokenizer.annotate(ann);
      List<List<CoreLabel>> sents = new ArrayList<>();
      for (CoreMap s : ann.get(CoreAnnotations.SentencesAnnotation.class)) sents.add(s.get(CoreAnnotations.TokensAnnotation.class));
      sentences.add(sents);
    }
    long t1 = System.nanoTime();
    LexicalizedParser parser = LexicalizedParser.loadModel("edu/stanford/nlp/models/lexparser/englishPCFG.ser.gz");
    parser.setOptionFlags("-retainTmpSubcategories");
    long t2 = System.nanoTime();
    List<String> trees = new ArrayList<>();
    JSONArray passSeconds = new JSONArray();
    JSONArray passCpuSeconds = new JSONArray();
    com.sun.management.OperatingSystemMXBean os =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    int count = 0;
    for (int pass = 0; pass < passes; pass++) {
      long p0 = System.nanoTime();
      long c0 = os.getProcessCpuTime();
      for (List<List<CoreLabel>> sents : sentences) {
        for (List<CoreLabel> tokens : sents) {
          LexicalizedParserQuery query = parser.lexicalizedParserQuery();
          query.setConstraints(null);
          query.parse(tokens);
          List<ScoredObject<Tree>> best = query.getKBestPCFGParses(1);
          String tree = best == null || best.isEmpty() ? null : best.get(0).object().toString();
          if (pass == 0) { trees.add(tree); count++; }
        }
      }
      passSeconds.add((System.nanoTime() - p0) / 1e9);
      passCpuSeconds.add((os.getProcessCpuTime() - c0) / 1e9);
    }
    PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, "UTF-8");
    JSONObject timing = new JSONObject();
    timing.put("jvm_start_seconds", uptimeAtMainMs / 1e3);
    timing.put("tokenize_seconds", (t1 - t0) / 1e9);
    timing.put("load_seconds", (t2 - t1) / 1e9);
    timing.put("parse_seconds", passSeconds);
    timing.put("parse_cpu_seconds", passCpuSeconds);
    timing.put("sentences", count);
    out.println(timing.toJSONString());
    int k = 0;
    for (List<List<CoreLabel>> sents : sentences) {
      JSONArray sa = new JSONArray();
      for (List<CoreLabel> tokens : sents) {
        JSONObject so = new JSONObject();
        JSONArray words = new JSONArray();
        for (CoreLabel t : tokens) words.add(t.word());
        so.put("words", words);
        so.put("tree", trees.get(k++));
        sa.add(so);
      }
      out.println(sa.toJSONString());
    }
  }
}
