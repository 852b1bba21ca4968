import{r as e,t}from"./chunk-FGVZ23HU-Dl3_Nr0c.js";import"./chunk-KTR4FSNJ-DSr3q0Xy.js";import"./chunk-CNRTWJTD-rrwx9R2W.js";import"./diagram-D2Y0rpQ8.js";import"./chunk-D5HYT7QG-CbjYMoAO.js";import"./chunk-F3AE6A5H-lLhRrL_J.js";import"./chunk-MDAHDJXZ-DfwAdZv3.js";import"./chunk-MPYPSXSE-DBlEszDw.js";import"./chunk-GZTWQ64R-BwHSE6T0.js";import"./chunk-DZSZGQHW-Bq4AoPPh.js";import"./chunk-ND7LMLKX-ByFlwyWw.js";import"./chunk-T47YP6PS-DVxMK6c3.js";import"./chunk-OWCVCYLK-BsBuDXlU.js";import"./chunk-QDWOWVBQ-CZaOse2U.js";import"./d3-selection-dCQX2BNo.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({styles:n(t=>`${e(t)}
  .swimlane.cluster:not([data-color-id]) rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};