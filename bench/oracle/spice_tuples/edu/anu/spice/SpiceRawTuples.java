package edu.anu.spice;

import edu.stanford.nlp.ling.CoreAnnotations;
import edu.stanford.nlp.ling.IndexedWord;
import edu.stanford.nlp.pipeline.Annotation;
import edu.stanford.nlp.pipeline.StanfordCoreNLP;
import edu.stanford.nlp.semgraph.SemanticGraph;
import edu.stanford.nlp.semgraph.SemanticGraphCoreAnnotations;
import edu.stanford.nlp.semgraph.SemanticGraphEdge;
import edu.stanford.nlp.util.CoreMap;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.json.simple.JSONArray;
import org.json.simple.JSONObject;

/**
 * Reads captions (one per line, UTF-8) and writes one JSON line per caption: the raw tuples
 * SpiceParser.parseAnnotation returns, in their order, and each sentence's CCprocessed graph before
 * and after SPICE's enhancements, with copy nodes and in the graph's own iteration order
 * (vertices, then each vertex's outgoing edges). The pipeline is configured as SPICE's Annotator
 * configures it, without its ner annotator (SPICE reads nothing from it).
 */
public class SpiceRawTuples {
  static JSONArray node(IndexedWord w) {
    JSONArray a = new JSONArray();
    a.add(w.index());
    a.add(w.copyCount());
    return a;
  }

  static JSONObject graph(SemanticGraph g) {
    JSONObject o = new JSONObject();
    JSONArray vertices = new JSONArray();
    JSONArray edges = new JSONArray();
    for (IndexedWord v : g.vertexSet()) {
      JSONArray vv = node(v);
      vv.add(v.word());
      vv.add(v.tag());
      vv.add(v.lemma());
      vertices.add(vv);
      for (SemanticGraphEdge e : g.outgoingEdgeIterable(v)) {
        JSONArray ee = new JSONArray();
        ee.add(e.getRelation().toString());
        ee.add(node(e.getGovernor()));
        ee.add(node(e.getDependent()));
        edges.add(ee);
      }
    }
    JSONArray roots = new JSONArray();
    for (IndexedWord r : g.getRoots()) roots.add(node(r));
    o.put("vertices", vertices);
    o.put("edges", edges);
    o.put("roots", roots);
    return o;
  }

  public static void main(String[] args) throws Exception {
    int threads = args.length > 0 ? Integer.parseInt(args[0]) : 1;
    Properties props = new Properties();
    props.setProperty("annotators", "tokenize,ssplit,parse,lemma");
    props.setProperty("depparse.extradependencies", "MAXIMAL");
    props.setProperty("threads", Integer.toString(threads));
    StanfordCoreNLP pipeline = new StanfordCoreNLP(props);
    SpiceParser parser = new SpiceParser(null, threads, true);
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, "UTF-8");
    List<String> batch = new ArrayList<>();
    String line;
    while (true) {
      line = in.readLine();
      if (line != null) batch.add(line);
      if (batch.size() == 2000 || (line == null && !batch.isEmpty())) {
        List<Annotation> anns = new ArrayList<>();
        for (String c : batch) anns.add(new Annotation(c));
        pipeline.annotate(anns);
        for (int i = 0; i < anns.size(); i++) {
          Annotation ann = anns.get(i);
          JSONArray before = new JSONArray();
          List<SemanticGraph> graphs = new ArrayList<>();
          for (CoreMap s : ann.get(CoreAnnotations.SentencesAnnotation.class)) {
            SemanticGraph g = s.get(SemanticGraphCoreAnnotations.CollapsedCCProcessedDependenciesAnnotation.class);
            graphs.add(g);
            before.add(graph(g));
          }
          SpiceParser.ProposedTuples tuples = parser.parseAnnotation(ann);
          JSONArray after = new JSONArray();
          for (SemanticGraph g : graphs) after.add(graph(g));
          JSONArray raw = new JSONArray();
          for (ArrayList<String> t : tuples.tuples) {
            JSONArray tt = new JSONArray();
            tt.addAll(t);
            raw.add(tt);
          }
          JSONObject o = new JSONObject();
          o.put("caption", batch.get(i));
          o.put("tuples", raw);
          o.put("before", before);
          o.put("after", after);
          out.println(o.toJSONString());
        }
        batch.clear();
      }
      if (line == null) break;
    }
  }
}
