package edu.stanford.nlp.graph;

import edu.stanford.nlp.util.MapFactory;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Test-time stand-in for the CoreNLP graph that SPICE's SceneGraph stores its nodes and edges
 * in: the four operations it calls. Nodes are told apart by identity (SceneGraphNode keeps
 * Object's identity hash code) and listed in insertion order, which is one of the orders
 * the real hash map can produce; capeval uses the same order.
 */
public class DirectedMultiGraph<V, E> implements java.io.Serializable {
  private static final long serialVersionUID = 1L;
  private final IdentityHashMap<V, Boolean> known = new IdentityHashMap<V, Boolean>();
  private final List<V> vertices = new ArrayList<V>();
  private final List<E> edges = new ArrayList<E>();

  public DirectedMultiGraph(MapFactory<?, ?> outer, MapFactory<?, ?> inner) {}

  public boolean addVertex(V v) {
    if (known.containsKey(v)) {
      return false;
    }
    known.put(v, Boolean.TRUE);
    vertices.add(v);
    return true;
  }

  public void add(V source, V target, E edge) {
    addVertex(source);
    addVertex(target);
    edges.add(edge);
  }

  public Set<V> getAllVertices() {
    return new LinkedHashSet<V>(vertices);
  }

  public List<E> getAllEdges() {
    return new ArrayList<E>(edges);
  }
}
