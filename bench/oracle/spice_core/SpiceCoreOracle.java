import edu.anu.spice.Evaluation;
import edu.anu.spice.SceneGraph;
import edu.anu.spice.TupleFilter;
import edu.anu.spice.TupleSet;
import edu.cmu.meteor.aligner.SynonymDictionary;
import edu.cmu.meteor.util.Constants;
import java.io.BufferedReader;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.lang.reflect.Field;
import java.net.URL;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.json.simple.JSONArray;
import org.json.simple.JSONObject;
import org.json.simple.parser.JSONParser;

/**
 * Official SPICE 1.0 scoring (scene graphs, merging, tuple sets, matching, categories) and
 * METEOR 1.5 synsets on given inputs, with no parser involved.
 *
 * <pre>
 *   score IN OUT [exact]   IN: [{"test": [tuple, ...], "refs": [[tuple, ...], ...]}, ...]
 *                          OUT: per item, tp fp fn of All, Object, Attribute, Relation,
 *                          Cardinality, Color, Size, then the All F-score
 *   synsets IN OUT         IN: one concept per line; OUT: concept TAB sorted synset ids
 * </pre>
 */
public class SpiceCoreOracle {
  private static final String[] FILTERS = {
    "objectFilter", "attributeFilter", "relationFilter", "cardinalityFilter", "colorFilter", "sizeFilter"
  };

  public static void main(String[] args) throws Exception {
    URL dir = Constants.DEFAULT_SYN_DIR_URL;
    SynonymDictionary synonyms = new SynonymDictionary(
        new URL(dir + "/english.exceptions"), new URL(dir + "/english.synsets"), new URL(dir + "/english.relations"));
    PrintWriter out = new PrintWriter(new OutputStreamWriter(new FileOutputStream(args[2]), "UTF-8"));
    if (args[0].equals("synsets")) {
      BufferedReader in = new BufferedReader(new InputStreamReader(new FileInputStream(args[1]), "UTF-8"));
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        String key = line.trim().toLowerCase().replace(" ", "_");
        TreeSet<Integer> ids = new TreeSet<Integer>(synonyms.getSynSets(key));
        ids.addAll(synonyms.getStemSynSets(key));
        StringBuilder row = new StringBuilder(line).append('\t');
        for (Integer id : ids) {
          row.append(id).append(' ');
        }
        out.println(row.toString().trim());
      }
      in.close();
    } else {
      boolean useSynsets = !(args.length > 3 && args[3].equals("exact"));
      List<TupleFilter> filters = new ArrayList<TupleFilter>();
      for (String name : FILTERS) {
        Field field = TupleFilter.class.getDeclaredField(name);
        field.setAccessible(true);
        filters.add((TupleFilter) field.get(null));
      }
      JSONArray items = (JSONArray) new JSONParser().parse(new InputStreamReader(new FileInputStream(args[1]), "UTF-8"));
      for (Object o : items) {
        JSONObject item = (JSONObject) o;
        JSONArray test = new JSONArray();
        test.add(item.get("test"));
        SceneGraph testGraph = graph(synonyms, test, useSynsets);
        SceneGraph refGraph = graph(synonyms, (JSONArray) item.get("refs"), useSynsets);
        Evaluation all = new Evaluation(new TupleSet(testGraph), new TupleSet(refGraph), false, useSynsets);
        StringBuilder row = new StringBuilder().append(all.tp).append(' ').append(all.fp).append(' ').append(all.fn);
        for (TupleFilter filter : filters) {
          Evaluation e = new Evaluation(new TupleSet(testGraph, filter), new TupleSet(refGraph, filter), true, useSynsets);
          row.append(' ').append(e.tp).append(' ').append(e.fp).append(' ').append(e.fn);
        }
        out.println(row.append(' ').append(Double.toString(all.f)));
      }
    }
    out.close();
  }

  /** Captions' raw tuples replayed into one graph, as SpiceParser does for a reference set. */
  private static SceneGraph graph(SynonymDictionary synonyms, JSONArray captions, boolean merge) {
    SceneGraph graph = new SceneGraph(synonyms, merge);
    for (Object caption : captions) {
      for (Object t : (JSONArray) caption) {
        ArrayList<String> tuple = new ArrayList<String>();
        for (Object word : (JSONArray) t) {
          tuple.add((String) word);
        }
        graph.addTuple(tuple);
      }
    }
    return graph;
  }
}
